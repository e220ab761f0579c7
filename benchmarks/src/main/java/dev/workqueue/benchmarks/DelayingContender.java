package dev.workqueue.benchmarks;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The delaying queues the lateness and memory scenarios compare, by the name a benchmark's
 * {@code queue} {@code @Param} uses: {@code toolkit} ({@code DelayingQueue.create()}),
 * {@code toolkit-named} (a queue named "bench" with live metrics that record nothing, {@link
 * SilentMetricsProvider}: such a queue arms its metrics backstop timer), {@code delayqueue}
 * ({@code java.util.concurrent.DelayQueue} of {@link DelayedItem}s) and {@code peer}
 * (client-java-extended's {@code DefaultDelayingQueue}).
 *
 * <p><b>The peer</b> hands every {@code addAfter} to a {@code LinkedBlockingQueue} of capacity
 * 1000 with {@code offer}, which a thread of its own drains into a {@code DelayQueue} plus a
 * {@code ConcurrentHashMap}; when that buffer is full the item is silently dropped. The adapter
 * here waits for room in the buffer before each {@code addAfter}, so nothing is dropped and the
 * time spent waiting counts against the peer (as lateness, or as insert time). Its thread comes
 * from an executor of the adapter's own, with a daemon thread, shut down by {@link
 * DelayingQueueUnderTest#close}; the peer's own default executor is non-daemon and never shut
 * down.
 */
enum DelayingContender {
  TOOLKIT {
    @Override
    DelayingQueueUnderTest create() {
      return new Toolkit(DelayingQueue.create());
    }
  },
  TOOLKIT_NAMED {
    @Override
    DelayingQueueUnderTest create() {
      return new Toolkit(WorkQueue.<Integer>builder().name("bench")
          .metricsProvider(SilentMetricsProvider.INSTANCE).buildDelaying());
    }
  },
  DELAYQUEUE {
    @Override
    DelayingQueueUnderTest create() {
      return new Jdk(new DelayQueue<>());
    }
  },
  PEER {
    @Override
    DelayingQueueUnderTest create() {
      return new Peer();
    }
  };

  abstract DelayingQueueUnderTest create();

  static DelayingQueueUnderTest create(String name) {
    return valueOf(name.toUpperCase(java.util.Locale.ROOT).replace('-', '_')).create();
  }

  /** One shape for a delaying queue of Integer keys. */
  interface DelayingQueueUnderTest {
    /** Adds {@code key} after {@code delay} ({@code delayNanos} is the same delay). */
    void addAfter(Integer key, Duration delay, long delayNanos);

    /** Waits (up to seconds; then fails) for a due item and hands it out. */
    Integer take() throws InterruptedException;

    /** A due item, or null at once. */
    Integer tryTake();

    void done(Integer key);

    /** The queue under test itself, for JOL. */
    Object unwrap();

    /** Stops every thread the queue started. */
    default void close() {}
  }

  /** Long enough never to fire in a healthy run, short enough that a lost item fails it. */
  static final Duration TAKE_TIMEOUT = Duration.ofSeconds(30);

  static final class Toolkit implements DelayingQueueUnderTest {
    private final DelayingQueue<Integer> q;

    Toolkit(DelayingQueue<Integer> q) {
      this.q = q;
    }

    @Override
    public void addAfter(Integer key, Duration delay, long delayNanos) {
      q.addAfter(key, delay);
    }

    @Override
    public Integer take() throws InterruptedException {
      return q.poll(TAKE_TIMEOUT).orElseThrow(() -> new IllegalStateException("no item"));
    }

    @Override
    public Integer tryTake() {
      try {
        return q.poll(Duration.ZERO).orElse(null);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }

    @Override
    public void done(Integer key) {
      q.done(key);
    }

    @Override
    public Object unwrap() {
      return q;
    }

    @Override
    public void close() {
      q.shutDown();
    }
  }

  static final class Jdk implements DelayingQueueUnderTest {
    private final DelayQueue<DelayedItem> q;

    Jdk(DelayQueue<DelayedItem> q) {
      this.q = q;
    }

    @Override
    public void addAfter(Integer key, Duration delay, long delayNanos) {
      q.offer(new DelayedItem(key, System.nanoTime() + delayNanos));
    }

    @Override
    public Integer take() throws InterruptedException {
      DelayedItem d = q.poll(TAKE_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
      if (d == null) {
        throw new IllegalStateException("no item");
      }
      return (Integer) d.item;
    }

    @Override
    public Integer tryTake() {
      DelayedItem d = q.poll();
      return d == null ? null : (Integer) d.item;
    }

    @Override
    public void done(Integer key) {}

    @Override
    public Object unwrap() {
      return q;
    }
  }

  /** The peer's queue, with access to its hand-off buffer (a protected field). */
  static final class PeerDelayingQueue<T>
      extends io.kubernetes.client.extended.workqueue.DefaultDelayingQueue<T> {
    PeerDelayingQueue(ExecutorService executor) {
      super(executor);
    }

    BlockingQueue<?> buffer() {
      return waitingForAddQueue;
    }
  }

  static final class Peer implements DelayingQueueUnderTest {
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "peer-delaying-queue");
      t.setDaemon(true);
      return t;
    });
    private final PeerDelayingQueue<Integer> q = new PeerDelayingQueue<>(executor);
    private final BlockingQueue<?> buffer = q.buffer();

    @Override
    public void addAfter(Integer key, Duration delay, long delayNanos) {
      while (buffer.remainingCapacity() == 0) { // the peer would drop the item
        Thread.yield();
      }
      q.addAfter(key, delay);
    }

    /** Waits until the peer's thread has taken every buffered addAfter. */
    void awaitBufferDrained() {
      while (!buffer.isEmpty()) {
        Thread.yield();
      }
    }

    /** The peer's addAfter without waiting for room: what a caller of the peer gets. */
    void addAfterUnpaced(Integer key, Duration delay) {
      q.addAfter(key, delay);
    }

    @Override
    public Integer take() throws InterruptedException {
      return q.get(); // the peer has no timed get
    }

    @Override
    public Integer tryTake() {
      return Contender.peerTryTake(q);
    }

    @Override
    public void done(Integer key) {
      q.done(key);
    }

    @Override
    public Object unwrap() {
      return q;
    }

    @Override
    public void close() {
      q.shutDown();
      executor.shutdownNow(); // interrupts the waiting loop, which then returns
      try {
        if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the peer's delaying thread did not stop");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
