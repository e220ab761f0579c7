package dev.workqueue.benchmarks;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The toolkit's {@link PriorityWorkQueue} beside a {@link PriorityBlockingQueue} of
 * (key, priority, sequence number) entries, the JDK's nearest equivalent (the sequence number
 * gives FIFO within a priority; it has no de-duplication, no processing set, no delays).
 * Priorities are mixed: five levels, drawn at random (fixed seed) per add. {@code resident}
 * items stay queued throughout, so a take chooses among them.
 *
 * <ul>
 *   <li><b>One thread</b> ({@code *_1t}): take the next item, {@code done} it, add it back at a
 *       fresh priority: one add + get + done per op, the queue never empty (with
 *       {@code resident = 1}, the one-item round trip of {@code OneThreadBenchmark}).
 *   <li><b>Contention</b> ({@code *_2t}): two threads on one queue, each adding a key of its own
 *       and then taking one item without waiting ({@code poll(0)}, then {@code done}), so the
 *       queue stays at about {@code resident} items. The PBQ's sequence number is a shared
 *       {@code AtomicLong}, as FIFO order across threads needs.
 * </ul>
 *
 * Time per op; allocation with {@code -prof gc}. The toolkit queue runs with its defaults
 * (aging on: one clock read per add and per take that looks at the age line).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PriorityQueueBenchmark -prof gc},
 * or {@code benchmarks/run.sh quick PriorityQueueBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class PriorityQueueBenchmark {
  private static final int LEVELS = 5;
  private static final int RING = 4096; // a power of two

  /** A PriorityBlockingQueue entry: higher priority first, then lower sequence number. */
  record Ranked(Integer key, int priority, long seq) {}

  static final Comparator<Ranked> ORDER =
      Comparator.comparingInt((Ranked r) -> -r.priority).thenComparingLong(Ranked::seq);

  @Param({"1", "1000"})
  public int resident;

  private PriorityWorkQueue<Integer> toolkit;
  private PriorityBlockingQueue<Ranked> pbq;
  private final AtomicLong pbqSeq = new AtomicLong();
  /** Add options by priority level, made once: an add allocates nothing of the caller's. */
  static final AddOptions[] OPTIONS = new AddOptions[LEVELS];

  static {
    for (int p = 0; p < LEVELS; p++) {
      OPTIONS[p] = AddOptions.ofPriority(p * 10 - 20);
    }
  }

  /** Per thread: its own keys and a fixed random sequence of priority levels. */
  @State(Scope.Thread)
  public static class Cursor {
    final Integer[] keys = Keys.ring(RING);
    final int[] levels = new int[RING];
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      SplittableRandom random = new SplittableRandom(keys[0]);
      for (int i = 0; i < RING; i++) {
        levels[i] = random.nextInt(LEVELS);
      }
    }

    int level() {
      return levels[next++ & (RING - 1)];
    }

    Integer key() {
      return keys[next & (RING - 1)];
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    toolkit = WorkQueue.<Integer>builder()
        .buildPriority(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1)));
    pbq = new PriorityBlockingQueue<>(resident + 16, ORDER);
    Integer[] backlog = Keys.ring(Integer.highestOneBit(resident) * 2);
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < resident; i++) {
      int level = random.nextInt(LEVELS);
      toolkit.add(backlog[i], OPTIONS[level]);
      pbq.offer(new Ranked(backlog[i], OPTIONS[level].priority(), pbqSeq.getAndIncrement()));
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    toolkit.shutDown();
  }

  @Benchmark
  @Threads(1)
  public Integer toolkitAddGetDone_1t(Cursor c) throws InterruptedException {
    Integer item = toolkit.get().orElseThrow();
    toolkit.done(item);
    toolkit.add(item, OPTIONS[c.level()]);
    return item;
  }

  @Benchmark
  @Threads(1)
  public Ranked pbqPollOffer_1t(Cursor c) {
    Ranked r = pbq.poll();
    pbq.offer(new Ranked(r.key, OPTIONS[c.level()].priority(), pbqSeq.getAndIncrement()));
    return r;
  }

  @Benchmark
  @Threads(2)
  public Object toolkitAddPollDone_2t(Cursor c) throws InterruptedException {
    Integer key = c.key();
    toolkit.add(key, OPTIONS[c.level()]);
    Integer item = toolkit.poll(Duration.ZERO).orElse(null);
    if (item != null) {
      toolkit.done(item);
    }
    return item;
  }

  @Benchmark
  @Threads(2)
  public Ranked pbqOfferPoll_2t(Cursor c) {
    Integer key = c.key();
    pbq.offer(new Ranked(key, OPTIONS[c.level()].priority(), pbqSeq.getAndIncrement()));
    return pbq.poll();
  }
}
