package dev.workqueue.scheduling;

import dev.workqueue.clock.FakeClock;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * Baselines for the scheduling queue's activeQ: push one pod-like entry and pop the best, with
 * {@code resident} entries staying in the heap. Order as kube-scheduler's default
 * {@code PrioritySort}: higher priority first, then earlier timestamp. One thread.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ActiveQueueBenchmark}, or
 * {@code benchmarks/run.sh quick ActiveQueueBenchmark}.
 *
 * <p>In the scheduling queue's own package, as Caffeine keeps its benchmarks beside its code:
 * {@code KeyedHeap} is package-private, and the benchmarks jar runs on the class path.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class ActiveQueueBenchmark {
  /** A queued pod as the scheduler sorts it. */
  record Entry(Object item, int priority, long timestamp) {}

  static final Comparator<Entry> PRIORITY_SORT =
      Comparator.comparingInt((Entry e) -> -e.priority).thenComparingLong(e -> e.timestamp);

  private static final int PRIORITIES = 4096; // a power of two

  @Param({"1000", "100000"})
  public int resident;

  private PriorityQueue<Entry> priorityQueue;
  // Keyed by the entry's unique arrival number, as a scheduler keys pods by UID.
  private KeyedHeap<Long, Entry> keyedHeap;
  private SchedulingQueue<Long, Entry> schedulingQueue;
  private PriorityBlockingQueue<Entry> priorityBlockingQueue;
  private final int[] priorities = new int[PRIORITIES];
  private long clock;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < PRIORITIES; i++) {
      priorities[i] = random.nextInt(1000);
    }
    priorityQueue = new PriorityQueue<>(resident + 1, PRIORITY_SORT);
    priorityBlockingQueue = new PriorityBlockingQueue<>(resident + 1, PRIORITY_SORT);
    keyedHeap = new KeyedHeap<>(Entry::timestamp, PRIORITY_SORT);
    // A fake clock that never moves: pop order is priority, then arrival (sequence).
    schedulingQueue = SchedulingQueue.<Long, Entry>builder(Entry::timestamp)
        .clock(new FakeClock()).priority(Entry::priority).build();
    for (int i = 0; i < resident; i++) {
      priorityQueue.add(next());
      priorityBlockingQueue.add(next());
      keyedHeap.addOrUpdate(next());
      schedulingQueue.add(next());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    schedulingQueue.close();
  }

  /** The toolkit's keyed heap (the activeQ's structure): add-or-update, then pop. */
  @Benchmark
  public Entry keyedHeapPushPop() {
    keyedHeap.addOrUpdate(next());
    return keyedHeap.pop();
  }

  /**
   * The whole scheduling queue through its API: {@code add} (to activeQ, waking no one),
   * {@code pop} and {@code done}, with the per-item state and in-flight bookkeeping.
   */
  @Benchmark
  public Object schedulingQueueAddPopDone() throws InterruptedException {
    schedulingQueue.add(next());
    var popped = schedulingQueue.pop().orElseThrow();
    schedulingQueue.done(popped.id());
    return popped;
  }

  private Entry next() {
    long t = clock++;
    return new Entry(this, priorities[(int) t & (PRIORITIES - 1)], t);
  }

  @Benchmark
  public Entry priorityQueuePushPop() {
    priorityQueue.offer(next());
    return priorityQueue.poll();
  }

  @Benchmark
  public Entry priorityBlockingQueuePushPop() {
    priorityBlockingQueue.offer(next());
    return priorityBlockingQueue.poll();
  }
}
