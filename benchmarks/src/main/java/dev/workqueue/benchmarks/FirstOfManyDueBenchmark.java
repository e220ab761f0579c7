package dev.workqueue.benchmarks;

import dev.workqueue.benchmarks.DelayingContender.DelayingQueueUnderTest;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Lateness of the first of {@value #BATCH} items due together (PERF.md: "≤ 1.5× DelayQueue"):
 * delivery time − due time of the first item a waiting consumer gets when a thousand fall due at
 * the same instant. A queue that moves all due items into its ready queue before it hands out
 * the first makes that first one wait for the whole batch; {@code DelayQueue} hands out its
 * head at once. The consumer's wake-up itself (a timed park: tens of µs here) is in both.
 *
 * <p>Each call of the benchmark method is one round, on the benchmark thread: with the queue
 * empty and a consumer thread of the benchmark's own waiting in {@code take}, it adds {@value
 * #BATCH} keys, all due {@value #LEAD_MICROS} µs after the round started (each {@code addAfter}
 * gets {@code due − System.nanoTime()}, so every ready time is the due time plus the few ns
 * between that clock read and the queue's own), then parks until the consumer has taken and
 * {@code done} all of them. The consumer reads {@code System.nanoTime()} right after the take
 * that returns a round's first item; lateness = that − the due time. A round whose adds ran
 * past the due time (a preempted producer) is not recorded but counted ({@code late_fills}).
 *
 * <p><b>The figures are secondary results</b>, per iteration (about 400 rounds a second):
 * {@code first_p50_us} and {@code first_p99_us}, percentiles of the first item's lateness (µs,
 * log-linear histogram, ≤ 1.6% error), {@code rounds} recorded and {@code late_fills}. The
 * primary score is rounds per second: not a figure. Queues: {@code toolkit} ({@code
 * DelayingQueue.create()}) and {@code delayqueue}; {@code -p queue=toolkit-named} also works.
 *
 * <p>Run: {@code benchmarks/run.sh quick FirstOfManyDueBenchmark} (1 fork × 3 × 1 s: ~12 s),
 * or PERF.md's 2 forks × 5 × 1 s: {@code benchmarks/run.sh full FirstOfManyDueBenchmark} (~40
 * s), i.e. {@code java -jar benchmarks/target/benchmarks.jar FirstOfManyDueBenchmark -f 2 -wi
 * 3 -w 1s -i 5 -r 1s}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class FirstOfManyDueBenchmark {
  static final int BATCH = 1000;
  /** Items are due this long after the round starts: room for the adds (~0.1-0.3 ms). */
  static final long LEAD_MICROS = 2000;
  private static final long LEAD_NANOS = LEAD_MICROS * 1000;
  private static final long ROUND_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

  @Param({"toolkit", "delayqueue"})
  public String queue;

  private DelayingQueueUnderTest q;
  private final Integer[] keys = Arrays.copyOf(Keys.ring(1024), BATCH);
  private Thread consumer;
  /** The benchmark thread, which the consumer unparks when a round is complete. */
  private volatile Thread producer;
  private volatile boolean running;
  /** Items taken so far; only the consumer writes. */
  private volatile long taken;
  /** When the consumer got the first item of the current round; only the consumer writes. */
  private volatile long firstAt;
  private long rounds; // the producer's

  @Setup(Level.Trial)
  public void setUp() {
    q = DelayingContender.create(queue);
    running = true;
    consumer = new Thread(this::consume, "first-of-many-consumer");
    consumer.setDaemon(true);
    consumer.start();
  }

  private void consume() {
    try {
      while (running) {
        Integer key = q.take();
        long now = System.nanoTime();
        long n = taken;
        if (n % BATCH == 0) {
          firstAt = now;
        }
        q.done(key);
        taken = n + 1;
        if ((n + 1) % BATCH == 0) {
          LockSupport.unpark(producer);
        }
      }
    } catch (InterruptedException e) {
      // tear-down
    } catch (IllegalStateException e) {
      if (running) {
        throw e;
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    running = false;
    consumer.interrupt();
    consumer.join(TimeUnit.SECONDS.toMillis(5));
    if (consumer.isAlive()) {
      throw new IllegalStateException("the consumer did not stop");
    }
    q.close();
  }

  /** One round: a thousand items due together, then wait until the consumer has them all. */
  @Benchmark
  public void round(Figures out) {
    if (producer != Thread.currentThread()) {
      producer = Thread.currentThread(); // before any add: the consumer reads it after a take
    }
    long target = (rounds + 1) * BATCH;
    long due = System.nanoTime() + LEAD_NANOS;
    for (Integer k : keys) {
      long d = due - System.nanoTime();
      q.addAfter(k, Duration.ofNanos(d), d);
    }
    boolean onTime = System.nanoTime() - due < 0;
    long deadline = System.nanoTime() + ROUND_TIMEOUT_NANOS;
    while (taken < target) {
      LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(10)); // the consumer unparks
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("the consumer took " + (taken - rounds * BATCH)
            + " of " + BATCH + " items in 10 s");
      }
    }
    rounds++;
    if (onTime) {
      out.histogram.record(firstAt - due);
    } else {
      out.late_fills++;
    }
  }

  /** The iteration's figures, JMH secondary results (see the class comment). */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Figures {
    public double first_p50_us = Double.NaN;
    public double first_p99_us = Double.NaN;
    public long rounds;
    public long late_fills;
    final LatenessHistogram histogram = new LatenessHistogram();

    @Setup(Level.Iteration)
    public void reset() {
      histogram.reset();
      late_fills = 0;
    }

    @TearDown(Level.Iteration)
    public void publish() {
      first_p50_us = histogram.quantileNanos(0.50) / 1e3;
      first_p99_us = histogram.quantileNanos(0.99) / 1e3;
      rounds = histogram.total();
    }
  }
}
