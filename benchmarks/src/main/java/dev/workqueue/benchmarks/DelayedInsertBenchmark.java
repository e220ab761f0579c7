package dev.workqueue.benchmarks;

import dev.workqueue.DelayingQueue;
import java.time.Duration;
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
import org.openjdk.jmh.annotations.TearDown;
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
 * <p>{@code toolkitAddAfter} does the same with the toolkit's {@code DelayingQueue.addAfter}
 * on the system clock: the same 1 M far-future items (pre-boxed distinct Integer keys, added in
 * the same heap order), the same insert due times as precomputed {@code Duration}s, and room
 * for the inserts in its heap. {@code peerAddAfter} is client-java-extended's {@code
 * DefaultDelayingQueue.addAfter}: its {@code addAfter} only offers the item to a buffer of 1000
 * that its own thread drains into a {@code DelayQueue} and a {@code ConcurrentHashMap}, and
 * drops the item when that buffer is full (100 k back-to-back inserts would lose most of them).
 * So the peer's caller waits for room before each insert, and the invocation ends when the
 * peer's thread has taken the last one: the time per insert is what it takes the peer to hold
 * one more item, on two threads.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DelayedInsertBenchmark}, or
 * {@code benchmarks/run.sh quick DelayedInsertBenchmark}.
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
    /** The toolkit's and peer's: keys (distinct objects), delays from the trial's start. */
    Integer[] pendingKeys;
    Integer[] insertKeys;
    Integer[] fillerKeys;
    Duration[] insertDelay;
    long trialStart;

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
      trialStart = now;
      pendingKeys = java.util.Arrays.copyOf(Keys.ring(1 << 20), PENDING);
      insertKeys = java.util.Arrays.copyOf(Keys.ring(1 << 17), INSERTS);
      fillerKeys = java.util.Arrays.copyOf(Keys.ring(1 << 17), INSERTS);
      insertDelay = new Duration[INSERTS];
      for (int i = 0; i < INSERTS; i++) {
        insertDelay[i] = Duration.ofNanos(insertDue[i] - now);
      }
    }

    Duration pendingDelay(int i) {
      return Duration.ofNanos(pendingInHeapOrder[i].dueNanos - trialStart);
    }
  }

  /** The toolkit's delaying queue holding the backlog, with heap room for the inserts. */
  @State(Scope.Thread)
  public static class ToolkitState {
    DelayingQueue<Integer> queue;

    @Setup(Level.Iteration)
    public void setUp(Backlog backlog) {
      queue = DelayingQueue.create();
      // As for the DelayQueue: grow the heap to PENDING + INSERTS with filler entries first,
      // then cancel them (the heap only shrinks below a quarter full).
      Duration filler = Duration.ofHours(3);
      for (Integer k : backlog.fillerKeys) {
        queue.addAfter(k, filler);
      }
      for (int i = 0; i < PENDING; i++) {
        queue.addAfter(backlog.pendingKeys[i], backlog.pendingDelay(i));
      }
      for (Integer k : backlog.fillerKeys) {
        if (!queue.cancel(k)) {
          throw new IllegalStateException("a filler entry was not waiting");
        }
      }
      if (queue.waitingCount() != PENDING) {
        throw new IllegalStateException("backlog is " + queue.waitingCount());
      }
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
      queue.shutDown();
    }
  }

  /** The peer's delaying queue holding the backlog (fed at the pace its thread takes it). */
  @State(Scope.Thread)
  public static class PeerState {
    DelayingContender.Peer queue;

    @Setup(Level.Iteration)
    public void setUp(Backlog backlog) {
      queue = new DelayingContender.Peer();
      for (int i = 0; i < PENDING; i++) {
        queue.addAfter(backlog.pendingKeys[i], backlog.pendingDelay(i), 0);
      }
      queue.awaitBufferDrained();
    }

    @TearDown(Level.Iteration)
    public void tearDown() {
      queue.close();
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

  @Benchmark
  @OperationsPerInvocation(INSERTS)
  public Object toolkitAddAfter(Backlog backlog, ToolkitState state) {
    DelayingQueue<Integer> queue = state.queue;
    Integer[] keys = backlog.insertKeys;
    Duration[] delay = backlog.insertDelay;
    for (int i = 0; i < INSERTS; i++) {
      queue.addAfter(keys[i], delay[i]);
    }
    return queue;
  }

  @Benchmark
  @OperationsPerInvocation(INSERTS)
  public Object peerAddAfter(Backlog backlog, PeerState state) {
    DelayingContender.Peer queue = state.queue;
    Integer[] keys = backlog.insertKeys;
    Duration[] delay = backlog.insertDelay;
    for (int i = 0; i < INSERTS; i++) {
      queue.addAfter(keys[i], delay[i], 0); // waits for room in the peer's buffer
    }
    queue.awaitBufferDrained();
    return queue;
  }
}
