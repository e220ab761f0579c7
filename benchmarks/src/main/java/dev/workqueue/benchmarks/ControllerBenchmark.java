package dev.workqueue.benchmarks;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A controller end to end: reconciles per second with a no-op reconciler, at 1, 2 and 4
 * workers, for the toolkit's {@code Controller}, client-java-extended's {@code
 * DefaultController} and a plain fixed thread pool ({@link ControllerContender}).
 *
 * <p><b>One operation is one reconcile.</b> Each invocation enqueues {@value #KEYS} distinct
 * keys (built once, before the start) from the benchmark thread, as an informer's handler
 * would, and waits until the reconciler has run {@value #KEYS} times; hence
 * {@code @OperationsPerInvocation(KEYS)}, and the score is reconciles/s including the tail of
 * each batch. The controller is started once per trial and stopped at its end (the stop must
 * complete, or the trial fails).
 *
 * <p><b>Nothing dropped, nothing faked.</b> An invocation whose reconciles do not all arrive
 * within {@value #TIMEOUT_SECONDS} s throws, and so does an iteration whose reconcile count is
 * not exactly invocations × {@value #KEYS} (a key reconciled twice, or late): a contender that
 * loses or repeats keys gets no score. Before measuring, the set-up proves that the contender
 * runs {@code workers} workers at once: {@code workers} keys are enqueued and each reconcile
 * waits at a barrier until all of them are inside one.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ControllerBenchmark -prof gc}, or
 * {@code benchmarks/run.sh quick ControllerBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class ControllerBenchmark {
  /** Distinct keys per invocation. */
  static final int KEYS = 10_000;
  /** How long an invocation may wait for its reconciles before the run fails. */
  static final int TIMEOUT_SECONDS = 30;

  @Param({"toolkit", "peer", "executor"})
  public String controller;

  @Param({"1", "2", "4"})
  public int workers;

  private ControllerUnderTest c;
  private final LongAdder reconciles = new LongAdder();
  private volatile CountDownLatch pending = new CountDownLatch(0);
  /** Set during the set-up's probe only: reconciles meet here. */
  private volatile CyclicBarrier probe;
  private volatile Throwable probeFailure;
  private long invocations;

  /** The no-op reconciler's only work, on the worker's thread. */
  private void reconciled() {
    CyclicBarrier b = probe;
    if (b != null) {
      try {
        b.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
        probeFailure = e;
      }
    }
    reconciles.increment();
    pending.countDown();
  }

  @Setup(Level.Trial)
  public void start() throws InterruptedException {
    c = ControllerContender.named(controller).start(workers, KEYS, this::reconciled);
    probe = new CyclicBarrier(workers);
    CountDownLatch started = new CountDownLatch(workers);
    pending = started;
    c.enqueue(0, workers);
    boolean all = started.await(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    probe = null;
    if (!all || probeFailure != null) {
      throw new IllegalStateException(controller + " did not reconcile " + workers
          + " keys at once: it does not run " + workers + " workers", probeFailure);
    }
  }

  @Setup(Level.Iteration)
  public void resetCount() {
    reconciles.reset(); // every reconcile of the last invocation has counted
    invocations = 0;
  }

  @TearDown(Level.Iteration)
  public void checkCount() {
    long expected = invocations * KEYS;
    if (reconciles.sum() != expected) {
      throw new IllegalStateException(controller + " reconciled " + reconciles.sum()
          + " times in " + invocations + " invocations of " + KEYS + " distinct keys");
    }
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    c.close();
  }

  @Benchmark
  @OperationsPerInvocation(KEYS)
  public void reconcileAll() throws InterruptedException {
    CountDownLatch batch = new CountDownLatch(KEYS);
    pending = batch;
    c.enqueue(0, KEYS);
    if (!batch.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      throw new IllegalStateException(controller + " reconciled " + (KEYS - batch.getCount())
          + " of " + KEYS + " keys in " + TIMEOUT_SECONDS + " s");
    }
    invocations++;
  }
}
