package dev.workqueue.benchmarks;

import dev.workqueue.benchmarks.DelayingContender.DelayingQueueUnderTest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * CPU per delivered delayed item (PERF.md: "≤ 1.1× DelayQueue, 1 and 4 consumers, named and
 * unnamed"): what a delaying queue costs the whole process to hand out a steady stream of
 * short-delay items, including its wake-ups, spinning, timers and garbage. A queue can be on
 * time by spinning or by arming a timer per item; this figure is what keeps that honest.
 *
 * <p>The benchmark thread is the producer: every {@value #PRODUCER_SLEEP_MICROS} µs (a park)
 * it adds the items its schedule has made due, one per {@value #PERIOD_NANOS} ns (50 k/s), each
 * due {@value #DELAY_MICROS} µs after its slot. So due times are evenly spaced 20 µs apart,
 * while the producer itself wakes only ~4 k times a second (its cost is the same for every
 * queue and small beside theirs). {@code consumers} threads of the benchmark's own (1 or 4,
 * started per trial) take and {@code done} the items (the consumers keep up; at most {@value
 * #MAX_IN_FLIGHT} in flight, else the producer skips slots).
 *
 * <p><b>The figures are secondary results</b>, per iteration, measured from the iteration's
 * set-up to its tear-down on the producer thread (between them JMH only calls the producer):
 * {@code cpu_ns_per_item} = process CPU time ({@link ProcessCpu}: per-thread {@code
 * schedstat}, ns resolution, all threads incl. GC, JIT and timer threads) ÷ items delivered;
 * {@code vcsw_per_item}, voluntary context switches (parks and blocking) of all threads ÷
 * items; {@code cpu_ns_per_item_jmx}, the same CPU from {@code getProcessCpuTime()} (10 ms
 * ticks: a cross-check only); {@code delivered}. The primary score is the producer's call
 * rate: not a figure. Contenders: {@code toolkit} ({@code DelayingQueue.create()}), {@code
 * toolkit-named} (named, live metrics that record nothing: arms the metrics backstop timer),
 * {@code delayqueue} ({@code java.util.concurrent.DelayQueue}).
 *
 * <p>Run: {@code benchmarks/run.sh quick DelayedCpuBenchmark} (1 fork × 3 × 1 s, 3 queues × 2
 * consumer counts: ~35 s), or PERF.md's 2 forks × 5 × 1 s: {@code benchmarks/run.sh full
 * DelayedCpuBenchmark} (~2 min), i.e. {@code java -jar benchmarks/target/benchmarks.jar
 * DelayedCpuBenchmark -f 2 -wi 3 -w 1s -i 5 -r 1s}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class DelayedCpuBenchmark {
  /** One item every this many ns: 50 k/s. */
  static final long PERIOD_NANOS = 20_000;
  static final long DELAY_MICROS = 500;
  static final long DELAY_NANOS = DELAY_MICROS * 1000;
  static final long PRODUCER_SLEEP_MICROS = 200;
  static final int MAX_IN_FLIGHT = 8192;
  /** Keys: far more than can be in flight, so a key is never re-added while queued. */
  static final int RING = 1 << 16;
  /** A delay of {@code i} µs, for every delay the producer can give: no allocation per add. */
  private static final Duration[] DELAYS = new Duration[(int) DELAY_MICROS + 1];

  static {
    for (int i = 0; i < DELAYS.length; i++) {
      DELAYS[i] = Duration.ofNanos(i * 1000L);
    }
  }

  @Param({"toolkit", "toolkit-named", "delayqueue"})
  public String queue;

  @Param({"1", "4"})
  public int consumers;

  DelayingQueueUnderTest q;
  private final Integer[] keys = Keys.ring(RING);
  private Thread[] consumerThreads;
  private volatile boolean running;
  final LongAdder delivered = new LongAdder();
  private long added; // producer only
  private long next; // the producer's schedule: the next slot

  @Setup(Level.Trial)
  public void setUp() {
    q = DelayingContender.create(queue);
    running = true;
    consumerThreads = new Thread[consumers];
    for (int i = 0; i < consumers; i++) {
      consumerThreads[i] = new Thread(this::consume, "delayed-cpu-consumer-" + i);
      consumerThreads[i].setDaemon(true);
      consumerThreads[i].start();
    }
  }

  private void consume() {
    try {
      while (running) {
        Integer key = q.take();
        q.done(key);
        delivered.increment();
      }
    } catch (InterruptedException e) {
      // tear-down
    } catch (IllegalStateException e) {
      if (running) { // a lost item; after tear-down, a queue shut down under a waiting take
        throw e;
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    running = false;
    for (Thread t : consumerThreads) {
      t.interrupt();
    }
    for (Thread t : consumerThreads) {
      t.join(TimeUnit.SECONDS.toMillis(5));
      if (t.isAlive()) {
        throw new IllegalStateException(t.getName() + " did not stop");
      }
    }
    q.close();
  }

  /** The producer's step: adds what its schedule has made due, then parks. */
  @Benchmark
  public void produce(Cost cost) {
    long now = System.nanoTime();
    if (next == 0 || now - next > DELAY_NANOS) {
      next = now; // (re)start, or drop the debt of a stall longer than a delay
    }
    if (added - delivered.sum() < MAX_IN_FLIGHT) {
      while (next - now <= 0) {
        long delayMicros = (next + DELAY_NANOS - now) / 1000; // 0..DELAY_MICROS
        q.addAfter(keys[(int) (added & (RING - 1))], DELAYS[(int) delayMicros],
            delayMicros * 1000);
        added++;
        next += PERIOD_NANOS;
      }
    } else {
      next = now + PERIOD_NANOS; // too much in flight: skip the slots
    }
    LockSupport.parkNanos(PRODUCER_SLEEP_MICROS * 1000);
  }

  /** The iteration's figures, JMH secondary results (see the class comment). */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Cost {
    public double cpu_ns_per_item = Double.NaN;
    public double vcsw_per_item = Double.NaN;
    public double cpu_ns_per_item_jmx = Double.NaN;
    public long delivered;

    private ProcessCpu.Snapshot start;
    private long deliveredAtStart;

    @Setup(Level.Iteration)
    public void start(DelayedCpuBenchmark b) {
      b.next = 0;
      deliveredAtStart = b.delivered.sum();
      start = ProcessCpu.take();
    }

    @TearDown(Level.Iteration)
    public void stop(DelayedCpuBenchmark b) {
      ProcessCpu.Snapshot end = ProcessCpu.take();
      delivered = b.delivered.sum() - deliveredAtStart;
      ProcessCpu.Delta d = ProcessCpu.between(start, end);
      cpu_ns_per_item = d.cpuNanos() / delivered;
      vcsw_per_item = d.voluntarySwitches() / delivered;
      cpu_ns_per_item_jmx = d.jmxCpuNanos() / delivered;
    }
  }
}
