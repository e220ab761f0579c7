package dev.workqueue.benchmarks;

import dev.workqueue.DelayingQueue;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.DelayQueue;
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
 * The longest {@code add} on another thread while {@value #MASS} delayed items fall due at
 * once (PERF.md: "≤ 2× DelayQueue"). A queue that moves every due item into its ready queue in
 * one batch under its lock makes every other caller wait for the whole batch; {@code DelayQueue}
 * hands its heap head out one {@code poll} at a time, so an {@code offer} waits for one poll at
 * most. This is the figure that catches a batch that grows with the backlog.
 *
 * <p>Each iteration ({@link Mode#SingleShotTime}: one call) starts from a queue built in the
 * iteration's set-up: {@value #MASS} distinct pre-boxed keys, all given the same due time,
 * {@value #QUIET_MILLIS} ms (plus a tenth of the fill's time, as margin) after the last of them
 * is added. The fill takes ~0.3-1 s; its time is learnt from the iteration before (the first
 * of a fork allows 2 s and so waits longer), and a fill that runs to within 10 ms of the due
 * time is redone. A {@code System.gc()} before each fill clears the last iteration's million
 * outside the window, and one after it moves the new million to the old generation, as items
 * that waited out a delay would be: otherwise the first young collection inside the window
 * copies the million the set-up has just made, a pause of tens of milliseconds that only a
 * queue allocating per take (the toolkit makes an entry per item handed out) meets, and that
 * says nothing about its lock. The toolkit's {@code addAfter} takes a delay, so each key gets
 * {@code due − System.nanoTime()}; its ready time is the due time plus the few ns between that
 * clock read and the queue's own. {@code DelayQueue} entries get their due time by the same
 * arithmetic, so the two heaps hold the same spread of ready times (identical due times would
 * let {@code DelayQueue}'s heap skip every sift, a tie never moving: 40 ns a poll instead of
 * ~400 at a million, a case no real workload has).
 *
 * <p>The measured call is the consumer: it takes ({@code get} with a timeout; {@code DelayQueue
 * .poll} with a timeout) and {@code done}s every item until it has had all {@value #MASS}. An
 * adder thread, from {@value #ADDER_LEAD_MILLIS} ms before the due time until the consumer has
 * the last of them, calls the toolkit's {@code add} (or {@code DelayQueue.offer} of an entry
 * due now) with a fresh key every {@value #ADD_PERIOD_NANOS} ns (100 k/s, spinning between
 * calls; after a long call it resumes the schedule from then rather than bursting), timing each
 * call with {@code System.nanoTime()}.
 *
 * <p><b>The figures are secondary results</b>, per iteration: {@code max_add_us}, the longest
 * single call (µs); {@code p999_add_us}, its 99.9th percentile (log-linear histogram, ≤ 1.6%
 * error); {@code adds}, the calls timed. The primary score (ms) is the consumer's call: the
 * wait for the due time plus taking the million; not a bar. A GC pause or a preemption of the
 * adder lands in the longest add of any queue: compare medians over iterations, and the spread.
 *
 * <p>Run: {@code benchmarks/run.sh quick MassDueAddBenchmark} (1 fork, 1 + 3 single shots per
 * queue: ~15 s), or PERF.md's 2 forks × 5: {@code benchmarks/run.sh full MassDueAddBenchmark}
 * (3 warm-up shots: ~1 min), or {@code java -jar benchmarks/target/benchmarks.jar
 * MassDueAddBenchmark} (this class's defaults: 2 forks × (2 + 5) shots). Each shot is ~1.5 s
 * (GC, fill, 50 ms, the window), the first of a fork ~3 s. {@code -r} does not apply.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@State(Scope.Benchmark)
public class MassDueAddBenchmark {
  static final int MASS = 1_000_000;
  static final long QUIET_MILLIS = 50;
  static final long ADDER_LEAD_MILLIS = 2;
  /** The adder calls once per this many ns: 100 k/s. */
  static final long ADD_PERIOD_NANOS = 10_000;
  private static final long MS = 1_000_000;
  private static final Duration TAKE_TIMEOUT = Duration.ofSeconds(30);

  @Param({"toolkit", "delayqueue"})
  public String queue;

  private final Integer[] massKeys = Arrays.copyOf(Keys.ring(1 << 20), MASS);
  private final int massBase = massKeys[0];
  /** Fresh keys for the adder: 5 s at 100 k/s; past that it stops (never re-adds a key). */
  private final Integer[] freshKeys = Keys.ring(1 << 19);
  /** How long the last fill took; the first one of a fork is given 2 s. */
  private long fillNanos = 2000 * MS;
  /** How long the collection after the fill takes; learnt like the fill's time. */
  private long settleNanos = 1000 * MS;

  private DelayingQueue<Integer> toolkit;
  private DelayQueue<DelayedItem> jdk;
  private long due;
  private Adder adder;

  @Setup(Level.Iteration)
  public void setUp() {
    for (int attempt = 0; ; attempt++) {
      System.gc(); // the previous iteration's million, before the fill rather than during it
      long start = System.nanoTime();
      due = start + fillNanos + fillNanos / 10 + settleNanos + settleNanos / 10
          + QUIET_MILLIS * MS;
      if ("toolkit".equals(queue)) {
        toolkit = DelayingQueue.create();
        for (Integer k : massKeys) {
          toolkit.addAfter(k, Duration.ofNanos(due - System.nanoTime()));
        }
      } else {
        jdk = new DelayQueue<>();
        for (Integer k : massKeys) {
          // The ready time the toolkit computes for the same call (its clock plus the delay
          // asked for): the million differ by nanoseconds, as real items falling due together
          // do. Identical due times would let DelayQueue's heap skip every sift (a tie never
          // moves), a case no real workload has.
          long delay = due - System.nanoTime();
          jdk.offer(new DelayedItem(k, System.nanoTime() + delay));
        }
      }
      long filled = System.nanoTime();
      fillNanos = filled - start;
      System.gc(); // the million have waited: old, as in a queue whose items waited their delay
      long end = System.nanoTime();
      settleNanos = end - filled;
      if (due - end >= 10 * MS) {
        break;
      }
      close(); // the fill ran into the due time: redo it, given the time it took
      if (attempt == 3) {
        throw new IllegalStateException("the fill overran its due time four times");
      }
    }
    adder = new Adder();
    adder.start();
  }

  @TearDown(Level.Iteration)
  public void tearDown() throws InterruptedException {
    adder.finish();
    close();
  }

  private void close() {
    if (toolkit != null) {
      toolkit.shutDown();
    }
    toolkit = null;
    jdk = null;
  }

  /** The consumer: takes and finishes items until all of the million were taken. */
  @Benchmark
  public long massFallsDue(Figures out) throws InterruptedException {
    long mass = 0;
    while (mass < MASS) {
      int key;
      if (toolkit != null) {
        Integer k = toolkit.poll(TAKE_TIMEOUT).orElseThrow(MassDueAddBenchmark::lost);
        toolkit.done(k);
        key = k;
      } else {
        DelayedItem d = jdk.poll(TAKE_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        if (d == null) {
          throw lost();
        }
        key = (Integer) d.item;
      }
      if (key - massBase >= 0 && key - massBase < MASS) {
        mass++;
      }
    }
    adder.finish();
    out.max_add_us = adder.max / 1e3;
    out.p999_add_us = adder.histogram.quantileNanos(0.999) / 1e3;
    out.adds = adder.histogram.total();
    return mass;
  }

  private static IllegalStateException lost() {
    return new IllegalStateException("no item for " + TAKE_TIMEOUT);
  }

  /** The thread that adds fresh keys and times each call. */
  private final class Adder extends Thread {
    final LatenessHistogram histogram = new LatenessHistogram();
    long max;
    private volatile boolean stop;
    private Throwable failure;

    Adder() {
      super("mass-due-adder");
      setDaemon(true);
    }

    @Override
    public void run() {
      try {
        long start = due - ADDER_LEAD_MILLIS * MS;
        for (long now; (now = System.nanoTime()) - start < 0; ) {
          LockSupport.parkNanos(Math.min(start - now, MS)); // park overshoots: nap, then check
        }
        DelayingQueue<Integer> t = toolkit;
        DelayQueue<DelayedItem> j = jdk;
        long next = System.nanoTime();
        for (int i = 0; i < freshKeys.length && !stop; i++) {
          long now;
          while ((now = System.nanoTime()) - next < 0) {
            Thread.onSpinWait();
          }
          if (t != null) {
            t.add(freshKeys[i]);
          } else {
            j.offer(new DelayedItem(freshKeys[i], now));
          }
          long took = System.nanoTime() - now;
          histogram.record(took);
          max = Math.max(max, took);
          next += ADD_PERIOD_NANOS;
          if (now + took - next > ADD_PERIOD_NANOS) {
            next = now + took; // after a long call: resume the schedule, no burst
          }
        }
      } catch (Throwable e) {
        failure = e;
      }
    }

    /** Stops the adder and waits for it; its figures are complete after this. */
    void finish() throws InterruptedException {
      stop = true;
      join(TimeUnit.SECONDS.toMillis(10));
      if (isAlive()) {
        throw new IllegalStateException("the adder did not stop");
      }
      if (failure != null) {
        throw new IllegalStateException("the adder failed", failure);
      }
    }
  }

  /** The iteration's figures, JMH secondary results (see the class comment). */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Figures {
    public double max_add_us = Double.NaN;
    public double p999_add_us = Double.NaN;
    public long adds;

    @Setup(Level.Iteration)
    public void reset() {
      max_add_us = Double.NaN;
      p999_add_us = Double.NaN;
      adds = 0;
    }
  }
}
