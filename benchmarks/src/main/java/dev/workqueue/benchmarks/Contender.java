package dev.workqueue.benchmarks;

import dev.workqueue.WorkQueue;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The queues the work-queue scenarios compare, by the name a benchmark's {@code queue}
 * {@code @Param} uses ({@code toolkit}, {@code naive}, {@code abq}, {@code lbq}, {@code peer}).
 *
 * <p>To add a contender (the toolkit's delaying or rate-limiting queue, say): add a constant
 * here with an adapter, then add its name to the {@code @Param} list of each scenario that
 * should run it. See {@code benchmarks/ADDING.md}.
 */
public enum Contender {
  /** The toolkit's {@code WorkQueue.create()}. */
  TOOLKIT {
    @Override
    <T> QueueUnderTest<T> create() {
      return new ToolkitQueue<>(WorkQueue.create());
    }
  },
  /** {@link NaiveWorkQueue}: client-go's algorithm with one lock and two HashSets. */
  NAIVE {
    @Override
    <T> QueueUnderTest<T> create() {
      return new NaiveQueue<>(new NaiveWorkQueue<>());
    }
  },
  /** {@code ArrayBlockingQueue} put/take: the physical limit of a hand-off (no dedup). */
  ABQ {
    @Override
    <T> QueueUnderTest<T> create() {
      return new PlainQueue<>(new ArrayBlockingQueue<>(PLAIN_CAPACITY));
    }
  },
  /** {@code LinkedBlockingQueue} put/take (no dedup). */
  LBQ {
    @Override
    <T> QueueUnderTest<T> create() {
      return new PlainQueue<>(new LinkedBlockingQueue<>());
    }
  },
  /** The Java peer: client-java-extended's {@code DefaultWorkQueue}. */
  PEER {
    @Override
    <T> QueueUnderTest<T> create() {
      return new PeerQueue<>(new io.kubernetes.client.extended.workqueue.DefaultWorkQueue<>());
    }
  };

  /**
   * ArrayBlockingQueue's capacity: far above any benchmark's in-flight bound, so that the bound
   * (the same for every contender) and not the array decides when a producer waits.
   */
  static final int PLAIN_CAPACITY = 1 << 16;

  abstract <T> QueueUnderTest<T> create();

  /** Whether adding a queued item again leaves one copy (false for the plain JDK queues). */
  boolean deduplicates() {
    return this != ABQ && this != LBQ;
  }

  /** The contender a {@code @Param} value names, case-insensitively. */
  public static Contender named(String name) {
    return valueOf(name.toUpperCase(java.util.Locale.ROOT));
  }

  /**
   * A queue of the contender {@code name}, which must de-duplicate: scenarios that re-add
   * queued items would fill a plain queue until a put blocks for ever.
   */
  static <T> QueueUnderTest<T> createDeduplicating(String name) {
    Contender c = named(name);
    if (!c.deduplicates()) {
      throw new IllegalArgumentException(name + " does not de-duplicate: not a contender here");
    }
    return c.create();
  }

  /** The contender a {@code @Param} value names, case-insensitively. */
  public static <T> QueueUnderTest<T> create(String name) {
    return named(name).create();
  }

  private static final class ToolkitQueue<T> implements QueueUnderTest<T> {
    private final WorkQueue<T> q;

    ToolkitQueue(WorkQueue<T> q) {
      this.q = q;
    }

    @Override
    public void add(T item) {
      q.add(item);
    }

    @Override
    public T take() throws InterruptedException {
      return q.get().orElseThrow();
    }

    @Override
    public T tryTake() {
      try {
        return q.poll(Duration.ZERO).orElse(null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    @Override
    public void done(T item) {
      q.done(item);
    }

    @Override
    public void close() {
      q.shutDown();
    }
  }

  private static final class NaiveQueue<T> implements QueueUnderTest<T> {
    private final NaiveWorkQueue<T> q;

    NaiveQueue(NaiveWorkQueue<T> q) {
      this.q = q;
    }

    @Override
    public void add(T item) {
      q.add(item);
    }

    @Override
    public T take() throws InterruptedException {
      return q.get();
    }

    @Override
    public T tryTake() {
      return q.tryGet();
    }

    @Override
    public void done(T item) {
      q.done(item);
    }
  }

  private static final class PlainQueue<T> implements QueueUnderTest<T> {
    private final BlockingQueue<T> q;

    PlainQueue(BlockingQueue<T> q) {
      this.q = q;
    }

    @Override
    public void add(T item) throws InterruptedException {
      q.put(item);
    }

    @Override
    public T take() throws InterruptedException {
      return q.take();
    }

    @Override
    public T tryTake() {
      return q.poll();
    }

    @Override
    public void done(T item) {}
  }

  private static final class PeerQueue<T> implements QueueUnderTest<T> {
    private final io.kubernetes.client.extended.workqueue.DefaultWorkQueue<T> q;

    PeerQueue(io.kubernetes.client.extended.workqueue.DefaultWorkQueue<T> q) {
      this.q = q;
    }

    @Override
    public void add(T item) {
      q.add(item);
    }

    @Override
    public T take() throws InterruptedException {
      return q.get();
    }

    @Override
    public T tryTake() {
      return Contender.peerTryTake(q);
    }

    @Override
    public void done(T item) {
      q.done(item);
    }

    @Override
    public void close() {
      q.shutDown();
    }
  }

  /**
   * A get from the peer's queue that never waits. The peer has no timed get, but its methods
   * are synchronized on the queue, so under that monitor "length() > 0, then get()" is atomic.
   */
  static <T> T peerTryTake(io.kubernetes.client.extended.workqueue.DefaultWorkQueue<T> q) {
    synchronized (q) {
      if (q.length() == 0) {
        return null;
      }
      try {
        return q.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }
}
