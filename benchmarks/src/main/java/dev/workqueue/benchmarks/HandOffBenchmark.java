package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
import org.openjdk.jmh.infra.Control;

/**
 * Cross-thread hand-off throughput with distinct keys: producers {@code add}, consumers
 * {@code get} then {@code done} (put/take for the plain queues). Groups {@code p1c1} (one
 * producer, one consumer) and {@code p2c2} (two and two). <b>The figure is the consumers'
 * rate</b>, JMH's secondary result {@code p1c1_consume} / {@code p2c2_consume}, in ops/s; the
 * producers' rate includes their waiting.
 *
 * <p>Producers are held to about {@value #MAX_IN_FLIGHT} items added but not yet done, the same
 * bound for every contender; without it the unbounded queues would grow by millions of items
 * per second and the run would measure the garbage collector. The bound is kept with two
 * striped {@link LongAdder}s (added, done), read only every {@value #CHECK_EVERY} adds, so the
 * harness adds no shared hot cache line of its own to the hand-off being measured.
 *
 * <p>A producer that finds the bound reached <em>sleeps</em> ({@value #FULL_SLEEP_NANOS} ns), it
 * does not spin. With four threads on two cores, a producer spinning on {@code Thread.yield()}
 * keeps a core busy and reads the consumers' counter lines millions of times a second, and the
 * faster a queue's add, the more often its producers reach the bound and spin: measured here
 * (session 10, with the sequential keys below), a bound of 64 instead of 1,024 cut the naive
 * queue's 2P+2C rate from 6.0 to 3.1 M/s. A bound of 1,024 held the fastest contenders near
 * 10 M/s (ArrayBlockingQueue's 2P+2C rose from 11.3 to 17.0 M/s at 8,192, and the naive
 * queue's from 6.7 to 8.9).
 *
 * <p><b>The host's cross-core latency.</b> On the 2-vCPU virtual machine these run on, a cache
 * line's round trip between the two cores is about 70 ns in some episodes and about 400 ns in
 * others, each lasting from a second to tens of seconds ({@link CrossCoreProbe}). At 2P+2C the
 * toolkit's hand-off and the peer's ran at 40–50% of their near speed in the far episodes, the
 * naive queue and ArrayBlockingQueue (with sequential keys: see below) as fast or faster; the
 * untagged runs before showed the same
 * figures as a "slow mode" that made the toolkit's forks look bimodal. Run with {@link
 * HostModeProfiler} ({@code benchmarks/run.sh} does) so that every iteration is tagged with its
 * mode and the report compares like with like, and see {@link HandOffByHostMode} for a check of
 * those tags.
 *
 * <p><b>The keys' hashes.</b> Each producer adds keys from its own ring of distinct {@code
 * Integer}s. With {@code keys=spread}, the variant the bars use, their hashes are spread, as a
 * Kubernetes object's "namespace/name" key's are (JMH runs both variants unless told one).
 * With {@code keys=sequential} they are consecutive numbers, which hash to themselves: a queue built on {@code HashMap} or {@code ConcurrentHashMap} then keeps
 * consecutive keys in consecutive buckets, sixteen to a cache line, and a line crosses between
 * the cores once per sixteen items instead of once per item. In the far episodes above that
 * locality is worth a factor of about three to the naive queue (measured on 2026-11-24: 9.3
 * against 2.9 M/s at 1P+1C), so the bars are judged on spread keys and the sequential ones are
 * kept to show the difference.
 *
 * <p>Iterations always end: a thread that JMH has stopped measuring ({@link
 * Control#stopMeasurement}) never blocks again (consumers use {@link QueueUnderTest#tryTake},
 * producers stop waiting for room), and producers keep producing while any consumer is still
 * inside a blocking {@code take}, because JMH keeps calling every thread until all of them
 * have finished measuring.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar HandOffBenchmark -prof gc}, or
 * {@code benchmarks/run.sh quick HandOffBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Group)
public class HandOffBenchmark {
  /** At most this many items are added and not yet done, whatever the queue. */
  static final int MAX_IN_FLIGHT = 8192;
  /** A producer looks at the in-flight count once per this many adds (a power of two). */
  static final int CHECK_EVERY = 32;
  /**
   * How long a producer that finds {@link #MAX_IN_FLIGHT} items in flight sleeps before it looks
   * again: about 100 µs with Linux's timer slack, in which consumers at 17 M/s (the fastest
   * contender here) take some 1,700 of the 8,192 items, so none is left idle. (With a bound of
   * 1,024 the sleep held the fastest contenders near 10 M/s: ArrayBlockingQueue's 2P+2C rose
   * from 11.3 to 17.0 M/s at 8,192, and the naive queue's from 6.7 to 8.9.)
   */
  static final long FULL_SLEEP_NANOS = 50_000;

  @Param({"toolkit", "naive", "abq", "lbq", "peer"})
  public String queue;

  private QueueUnderTest<Integer> q;
  private final LongAdder added = new LongAdder();
  private final LongAdder done = new LongAdder();

  /** A producer's own keys: a ring far larger than {@link #MAX_IN_FLIGHT}, so all distinct. */
  @State(Scope.Thread)
  public static class ProducerKeys {
    /**
     * "spread": keys whose hashes are spread, as real keys' are ({@link Keys#spreadRing}); the
     * bars are judged on these. "sequential": consecutive {@code Integer}s, which hash to
     * themselves and so give queues built on {@code HashMap} or {@code ConcurrentHashMap} one
     * cache line per sixteen keys (see {@code RESULTS.md}'s hand-off note).
     */
    @Param({"spread", "sequential"})
    public String keys;

    private Integer[] ring;
    private int next;

    @Setup(Level.Trial)
    public void makeKeys() {
      ring = "sequential".equals(keys) ? Keys.ring(1 << 16) : Keys.spreadRing(1 << 16);
    }

    boolean checkDue() {
      return (next & (CHECK_EVERY - 1)) == 0;
    }

    Integer next() {
      return ring[next++ & (ring.length - 1)];
    }
  }

  /** A fresh queue per iteration: nothing left over from the last one. */
  @Setup(Level.Iteration)
  public void setUp() {
    q = Contender.create(queue);
    added.reset(); // no thread is running between iterations
    done.reset();
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    q.close();
  }

  @Benchmark
  @Group("p1c1")
  @GroupThreads(1)
  public void p1c1_produce(ProducerKeys keys, Control control) throws InterruptedException {
    produce(keys, control);
  }

  @Benchmark
  @Group("p1c1")
  @GroupThreads(1)
  public Integer p1c1_consume(Control control) throws InterruptedException {
    return consume(control);
  }

  @Benchmark
  @Group("p2c2")
  @GroupThreads(2)
  public void p2c2_produce(ProducerKeys keys, Control control) throws InterruptedException {
    produce(keys, control);
  }

  @Benchmark
  @Group("p2c2")
  @GroupThreads(2)
  public Integer p2c2_consume(Control control) throws InterruptedException {
    return consume(control);
  }

  private void produce(ProducerKeys keys, Control control) throws InterruptedException {
    if (keys.checkDue()) {
      while (added.sum() - done.sum() >= MAX_IN_FLIGHT) {
        if (control.stopMeasurement) {
          return;
        }
        LockSupport.parkNanos(FULL_SLEEP_NANOS);
      }
    }
    added.increment();
    q.add(keys.next());
  }

  private Integer consume(Control control) throws InterruptedException {
    Integer item;
    if (control.stopMeasurement) {
      item = q.tryTake();
      if (item == null) {
        return null;
      }
    } else {
      item = q.take();
    }
    q.done(item);
    done.increment();
    return item;
  }
}
