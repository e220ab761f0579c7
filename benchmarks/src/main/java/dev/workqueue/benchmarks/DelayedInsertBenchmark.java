package dev.workqueue.benchmarks;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Baselines for {@code addAfter} with a large backlog: inserting a delayed entry into a
 * {@code DelayQueue} and into a bare {@code PriorityQueue} that already hold {@value #PENDING}
 * entries due 1–2 hours from now. Each entry is allocated by the measured code, as
 * {@code addAfter} would.
 *
 * <p>To keep the backlog at 1 M rather than letting a time-boxed iteration grow it to many
 * millions, each iteration is one invocation ({@link Mode#SingleShotTime}) that inserts
 * {@value #INSERTS} entries into a queue rebuilt beforehand with exactly the 1 M pending
 * entries and room for the inserts (no array growth inside the measurement). The score is the
 * time per insert ({@link OperationsPerInvocation}); the iteration time option is ignored.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DelayedInsertBenchmark}, or
 * {@code benchmarks/run.sh quick DelayedInsertBenchmark}. The toolkit's delaying queue will be
 * a third method here.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class DelayedInsertBenchmark {
  static final int PENDING = 1_000_000;
  static final int INSERTS = 100_000;
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  /** The 1 M pending entries in heap order, and the due times of the entries to insert. */
  @State(Scope.Benchmark)
  public static class Backlog {
    DelayedItem[] pendingInHeapOrder;
    long[] insertDue;

    @Setup(Level.Trial)
    public void setUp() {
      SplittableRandom random = new SplittableRandom(42);
      long now = System.nanoTime();
      PriorityQueue<DelayedItem> heap = new PriorityQueue<>(PENDING);
      for (int i = 0; i < PENDING; i++) {
        heap.add(new DelayedItem(i, now + HOUR + random.nextLong(HOUR)));
      }
      // Adding a heap's array in index order to an empty heap never moves an element.
      pendingInHeapOrder = heap.toArray(new DelayedItem[0]);
      insertDue = new long[INSERTS];
      for (int i = 0; i < INSERTS; i++) {
        insertDue[i] = now + HOUR + random.nextLong(HOUR);
      }
    }
  }

  /** A DelayQueue holding the backlog, with array room for the inserts. */
  @State(Scope.Thread)
  public static class DelayQueueState {
    DelayQueue<DelayedItem> queue;

    @Setup(Level.Iteration)
    public void setUp(Backlog backlog) {
      queue = new DelayQueue<>();
      // Grow the internal array to PENDING + INSERTS with already-expired entries, then
      // take them out again: the measured inserts then never copy the array.
      for (int i = 0; i < INSERTS; i++) {
        queue.add(new DelayedItem(i, Long.MIN_VALUE / 2));
      }
      for (DelayedItem d : backlog.pendingInHeapOrder) {
        queue.add(d);
      }
      for (int i = 0; i < INSERTS; i++) {
        if (queue.poll() == null) {
          throw new IllegalStateException("an expired filler entry was not handed out");
        }
      }
      if (queue.size() != PENDING) {
        throw new IllegalStateException("backlog is " + queue.size());
      }
    }
  }

  /** A PriorityQueue holding the backlog, sized for the inserts. */
  @State(Scope.Thread)
  public static class PriorityQueueState {
    PriorityQueue<DelayedItem> queue;

    @Setup(Level.Iteration)
    public void setUp(Backlog backlog) {
      queue = new PriorityQueue<>(PENDING + INSERTS + 1);
      for (DelayedItem d : backlog.pendingInHeapOrder) {
        queue.add(d);
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(INSERTS)
  public Object delayQueueOffer(Backlog backlog, DelayQueueState state) {
    DelayQueue<DelayedItem> queue = state.queue;
    long[] due = backlog.insertDue;
    for (int i = 0; i < INSERTS; i++) {
      queue.offer(new DelayedItem(backlog, due[i]));
    }
    return queue;
  }

  @Benchmark
  @OperationsPerInvocation(INSERTS)
  public Object priorityQueueOffer(Backlog backlog, PriorityQueueState state) {
    PriorityQueue<DelayedItem> queue = state.queue;
    long[] due = backlog.insertDue;
    for (int i = 0; i < INSERTS; i++) {
      queue.offer(new DelayedItem(backlog, due[i]));
    }
    return queue;
  }
}
