package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Long-running invariant stress tests of the three queues on the real clock: many producers
 * re-add a few hot keys, many consumers take and finish them, and {@link InvariantChecker}
 * asserts the promises (never two consumers on one key, no add lost, delayed items delivered
 * each once and never early) and prints {@code "... operations N, violations 0"}.
 *
 * <ul>
 *   <li>{@code WorkQueue}: plain adds.
 *   <li>{@code DelayingQueue}: adds mixed with {@code addAfter} of 0-2 ms on the hot keys and
 *       on unique keys (each must come out exactly once), while the shared timer pool promotes
 *       due items and some consumers use the timed {@code poll}.
 *   <li>{@code RateLimitingQueue}: the same plus {@code addRateLimited} of hot and unique keys
 *       and {@code forget}, on a {@code maxOf(exponential, tokenBucket)} limiter; consumers
 *       also requeue the key they hold with {@code addRateLimited} (a failure) or
 *       {@code forget} it (a success), as a controller does.
 * </ul>
 *
 * At the end the producers stop, the waiting room empties, the queue is drained, and every
 * consumer and every timer thread the run started must exit. Sizes scale with
 * {@link StressScale}: about a second each at scale 1.
 */
class QueueStressTest {
  private static final int KEYS = 16;
  private static final long MAX_DELAY_NANOS = Duration.ofMillis(2).toNanos();
  /** The producers' last steps, during which consumers hold each key a little longer. */
  private static final int ENDGAME_STEPS = 200;

  /**
   * A {@code done} that ends a round takes no lock on a queue without metrics, and signals a
   * drain only if it sees the shutdown after its removal: a drain that starts while workers
   * finish their last items must still see the last one. A missed signal hangs the drain.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_racingTheLastDones_alwaysReturns(QueueKind kind) throws Exception {
    int rounds = 150 * StressScale.factor(); // 300 until the build's time was cut; -Plong: 1500
    int items = 8;
    for (int round = 0; round < rounds; round++) {
      WorkQueue<String> q = kind.build(WorkQueue.<String>builder(), QueueKind.FIRST_CHAR);
      List<Thread> workers = new ArrayList<>();
      CountDownLatch taken = new CountDownLatch(items);
      CountDownLatch go = new CountDownLatch(1);
      for (int i = 0; i < items; i++) {
        q.add(i % 2 + "/" + i);
      }
      for (int i = 0; i < items; i++) {
        Thread t = new Thread(() -> {
          try {
            String item = q.get().orElseThrow();
            taken.countDown();
            await(go);
            q.done(item);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        t.start();
        workers.add(t);
      }
      taken.await();
      Thread drain = startDrain(q);
      go.countDown(); // the dones race the drain's start
      drain.join(10_000);
      assertFalse(drain.isAlive(), kind + ", round " + round + ": the drain saw every done");
      for (Thread t : workers) {
        t.join(10_000);
      }
    }
  }

  /**
   * On a FIFO queue without metrics an add of a new item takes no lock; shutdown closes the
   * order's intake under the lock, so such an add lands before the shutdown (and is handed out
   * before the drain returns) or is dropped. One that slipped in after a consumer had seen the
   * queue shut down and empty would be left in the map, and the drain (which returns once the
   * map is empty) would wait for it forever. Producers add new keys while consumers work and the drain starts.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_racingAddsOfNewItems_returnsAndLeavesNothing(QueueKind kind)
      throws Exception {
    int rounds = 50 * StressScale.factor(); // 100 until the build's time was cut; -Plong: 500
    for (int round = 0; round < rounds; round++) {
      WorkQueue<String> q = kind.build(WorkQueue.<String>builder(), QueueKind.FIRST_CHAR);
      Set<String> handedOut = java.util.concurrent.ConcurrentHashMap.newKeySet();
      AtomicInteger twice = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      CountDownLatch started = new CountDownLatch(4);
      for (int p = 0; p < 2; p++) {
        int producer = p;
        threads.add(new Thread(() -> {
          started.countDown();
          for (int i = 0; !q.isShuttingDown() || i % 64 != 0; i++) {
            q.add(producer + "/" + i); // keeps adding a little after the shutdown, too
          }
        }));
      }
      for (int c = 0; c < 2; c++) {
        threads.add(new Thread(() -> {
          started.countDown();
          try {
            for (Optional<String> item; (item = q.get()).isPresent(); ) {
              if (!handedOut.add(item.get())) {
                twice.incrementAndGet();
              }
              q.done(item.get());
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }));
      }
      threads.forEach(Thread::start);
      started.await();
      Thread drain = startDrain(q);
      drain.join(10_000);
      assertFalse(drain.isAlive(), kind + ", round " + round + ": the drain returned");
      for (Thread t : threads) {
        t.join(10_000);
        assertFalse(t.isAlive(), kind + ", round " + round + ": every thread ended");
      }
      assertEquals(0, twice.get(), kind + ", round " + round + ": no item handed out twice");
      assertEquals(0, q.size(), kind + ", round " + round + ": nothing left queued");
    }
  }

  /**
   * New keys while the number of consumers changes: one consumer, then three, in turns of
   * {@code TURN} takes, so that the FIFO engine switches between an intake for new entries (one
   * thread takes) and putting them in line under the lock (several do), while producers, held
   * to a few hundred items ahead of the consumers, add down both paths. Every key must be handed
   * out exactly once, and each consumer must get each producer's keys in the order they were
   * added.
   */
  @Test
  void workQueue_newKeysWhileConsumersComeAndGo_handOutEachOnceAndInOrder() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    QueueEngine<String> engine = ((DefaultWorkQueue<String>) q).engine;
    int producers = 2;
    int perProducer = 40_000 * StressScale.factor();
    int turn = (CrowdWindow.QUIET_WINDOWS + 2) * CrowdWindow.WINDOW; // long enough to end a crowd
    AtomicInteger added = new AtomicInteger();
    AtomicInteger taken = new AtomicInteger();
    AtomicBoolean many = new AtomicBoolean();
    AtomicInteger switchesSeen = new AtomicInteger();
    AtomicInteger outOfOrder = new AtomicInteger();
    ConcurrentHashMap<String, Integer> handedOut = new ConcurrentHashMap<>();
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int producer = p;
      threads.add(new Thread(() -> {
        boolean crowded = false;
        for (int i = 0; i < perProducer; i++) {
          while (added.get() - taken.get() > 256) {
            LockSupport.parkNanos(20_000);
          }
          if (producer == 0 && engine.isCrowded() != crowded) {
            crowded = !crowded;
            switchesSeen.incrementAndGet();
          }
          added.incrementAndGet();
          q.add(producer + "/" + i);
        }
      }, "producer-" + p));
    }
    for (int c = 0; c < 3; c++) {
      boolean first = c == 0;
      threads.add(new Thread(() -> {
        int[] last = new int[producers];
        Arrays.fill(last, -1);
        try {
          while (true) {
            if (!first && !many.get() && !q.isShuttingDown()) {
              LockSupport.parkNanos(50_000);
              continue;
            }
            Optional<String> item = q.poll(Duration.ofMillis(10));
            if (item.isEmpty()) {
              if (q.isShuttingDown()) {
                return;
              }
              continue;
            }
            String key = item.get();
            int slash = key.indexOf('/');
            int producer = Integer.parseInt(key.substring(0, slash));
            int seq = Integer.parseInt(key.substring(slash + 1));
            if (seq <= last[producer]) {
              outOfOrder.incrementAndGet();
            }
            last[producer] = seq;
            handedOut.merge(key, 1, Integer::sum);
            q.done(key);
            int n = taken.incrementAndGet();
            if (first) {
              many.set(n / turn % 2 == 1);
            }
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "consumer-" + c));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads.subList(0, producers)) {
      t.join();
    }
    assertTrue(q.shutDownWithDrain(Duration.ofSeconds(30)), "drained");
    for (Thread t : threads) {
      t.join(10_000);
      assertFalse(t.isAlive(), t.getName() + " ended");
    }
    long twice = handedOut.values().stream().filter(n -> n != 1).count();
    System.out.printf("new keys, consumers coming and going: handed out %d of %d, twice %d,"
        + " out of order %d, switches seen %d%n", handedOut.size(), producers * perProducer,
        twice, outOfOrder.get(), switchesSeen.get());
    assertEquals(producers * perProducer, handedOut.size(), "every key handed out");
    assertEquals(0, twice, "no key handed out twice");
    assertEquals(0, outOfOrder.get(), "each consumer got each producer's keys in order");
    assertTrue(switchesSeen.get() >= 2, "the consumers became crowded and then not");
    assertTrue(engine.checkInvariants());
  }

  @Test
  void workQueue_manyProducersAndConsumers_keepEveryPromise() throws Exception {
    WorkQueue<Integer> q = WorkQueue.create();
    new Run(q, 4, 4, 20_000).start((r, random) -> r.add(random.nextInt(KEYS))).finish("WorkQueue");
  }

  @Test
  void delayingQueue_addAndAddAfter_keepEveryPromise() throws Exception {
    DelayingQueue<Integer> q = DelayingQueue.create();
    Run run = new Run(q, 3, 3, 10_000).start((r, random) -> {
      int roll = random.nextInt(16);
      if (roll < 8) {
        r.add(random.nextInt(KEYS));
      } else if (roll < 15) {
        r.addAfter(random.nextInt(KEYS), random);
      } else {
        r.addAfter(r.checker.uniqueKey(), random);
      }
    });
    run.finish("DelayingQueue");
    assertTrue(run.delayed.get() > 0, "some adds were delayed");
  }

  @Test
  void rateLimitingQueue_addRateLimitedAndForget_keepEveryPromise() throws Exception {
    RateLimiter<Integer> limiter = RateLimiters.maxOf(
        RateLimiters.exponential(Duration.ofNanos(1_000), Duration.ofNanos(MAX_DELAY_NANOS)),
        RateLimiters.tokenBucket(200_000, 100));
    RecordingLimiter recording = new RecordingLimiter(limiter);
    RateLimitingQueue<Integer> q = WorkQueue.<Integer>builder().buildRateLimiting(recording);
    Run run = new Run(q, 3, 3, 10_000);
    run.recording = recording;
    run.onHandOut = (r, key, random) -> {
      int roll = random.nextInt(4);
      if (roll == 0) {
        r.addRateLimited(key); // failed: requeue while still processing
      } else if (roll == 1) {
        q.forget(key); // succeeded
      }
    };
    run.start((r, random) -> {
      int roll = random.nextInt(32);
      if (roll < 8) {
        r.add(random.nextInt(KEYS));
      } else if (roll < 14) {
        r.addAfter(random.nextInt(KEYS), random);
      } else if (roll < 28) {
        r.addRateLimited(random.nextInt(KEYS));
      } else if (roll < 31) {
        q.forget(random.nextInt(KEYS));
      } else {
        r.addRateLimited(r.checker.uniqueKey());
      }
    });
    run.finish("RateLimitingQueue");
    assertTrue(run.rateLimited.get() > 0, "some adds were rate-limited");
  }

  /** One producer step: one or more calls on the queue. */
  @FunctionalInterface
  interface Producer {
    void step(Run run, SplittableRandom random);
  }

  /** What a consumer does with a key it holds, before {@code done}. */
  @FunctionalInterface
  interface Processing {
    void process(Run run, int key, SplittableRandom random);
  }

  /** A limiter that tells the calling thread the delay it just answered. */
  static final class RecordingLimiter implements RateLimiter<Integer> {
    private final RateLimiter<Integer> inner;
    private final ThreadLocal<long[]> last = ThreadLocal.withInitial(() -> new long[1]);

    RecordingLimiter(RateLimiter<Integer> inner) {
      this.inner = inner;
    }

    @Override
    public Duration when(Integer item) {
      Duration d = inner.when(item);
      last.get()[0] = d.toNanos();
      return d;
    }

    @Override
    public void forget(Integer item) {
      inner.forget(item);
    }

    @Override
    public int numRequeues(Integer item) {
      return inner.numRequeues(item);
    }

    long lastDelayNanos() {
      return last.get()[0];
    }
  }

  /** One stress run: producers, consumers, the checker, and the orderly end. */
  static final class Run {
    final WorkQueue<Integer> q;
    final InvariantChecker checker = new InvariantChecker(KEYS, System::nanoTime);
    final AtomicLong delayed = new AtomicLong();
    final AtomicLong rateLimited = new AtomicLong();
    private final int producers;
    private final int consumers;
    private final int stepsPerProducer;
    private final Set<Thread> toolkitThreadsBefore = ThreadOwnershipTest.toolkitThreads();
    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();
    private final CountDownLatch go = new CountDownLatch(1);
    /** Set once the producers are done: consumers stop requeueing. */
    private volatile boolean ending;
    /**
     * Set when a producer enters its last steps: consumers then hold each key about 50 us, and
     * each producer in its last steps adds only keys that are being processed, so that the last
     * adds of the hot keys land on processing keys. An add lost there (say, a {@code done} that
     * forgot a re-add made while processing) is then the key's last add, and the "last start
     * after last add" check sees it; earlier in the run, a later add would cover it up.
     */
    private volatile boolean endgame;
    /** Consumers between their check of {@link #ending} and the end of their requeue. */
    private final AtomicInteger requeueing = new AtomicInteger();
    RecordingLimiter recording;
    Processing onHandOut = (r, key, random) -> {};

    Run(WorkQueue<Integer> q, int producers, int consumers, int stepsPerProducer) {
      this.q = q;
      this.producers = producers;
      this.consumers = consumers;
      this.stepsPerProducer = stepsPerProducer * StressScale.factor();
    }

    void add(int key) {
      long now = checker.beforeAdd(key);
      q.add(key);
      checker.readyAt(key, now);
    }

    void addAfter(int key, SplittableRandom random) {
      long delay = random.nextLong(MAX_DELAY_NANOS + 1);
      long now = checker.beforeAdd(key);
      ((DelayingQueue<Integer>) q).addAfter(key, Duration.ofNanos(delay));
      checker.readyAt(key, now + delay);
      delayed.incrementAndGet();
    }

    void addRateLimited(int key) {
      long now = checker.beforeAdd(key);
      ((RateLimitingQueue<Integer>) q).addRateLimited(key);
      checker.readyAt(key, now + recording.lastDelayNanos());
      rateLimited.incrementAndGet();
    }

    Run start(Producer producer) {
      for (int p = 0; p < producers; p++) {
        SplittableRandom random = new SplittableRandom(p);
        producerThreads.add(new Thread(() -> {
          await(go);
          for (int i = 0; i < stepsPerProducer; i++) {
            boolean myEndgame = i >= stepsPerProducer - ENDGAME_STEPS;
            if (myEndgame) {
              endgame = true;
            }
            if (!myEndgame) {
              producer.step(this, random);
            } else {
              int busy = checker.busyKey(random.nextInt(KEYS));
              if (busy >= 0) {
                add(busy);
              } else {
                Thread.yield(); // no key is being processed: let a consumer take one
              }
            }
            if ((i & 7) == 0) {
              Thread.yield(); // give consumers a chance, so adds also land on processing keys
            }
          }
        }, "stress-producer-" + p));
      }
      boolean delaying = q instanceof DelayingQueue;
      for (int c = 0; c < consumers; c++) {
        SplittableRandom random = new SplittableRandom(100 + c);
        boolean timed = delaying && c % 2 == 1; // woken by adds or by time
        consumerThreads.add(new Thread(() -> consume(random, timed), "stress-consumer-" + c));
      }
      // Daemons: a failed run must not keep the test JVM alive with a consumer blocked in get.
      producerThreads.forEach(t -> t.setDaemon(true));
      consumerThreads.forEach(t -> t.setDaemon(true));
      producerThreads.forEach(Thread::start);
      consumerThreads.forEach(Thread::start);
      go.countDown();
      return this;
    }

    private void consume(SplittableRandom random, boolean timed) {
      await(go);
      try {
        while (true) {
          Optional<Integer> next = timed ? q.poll(Duration.ofMillis(1)) : q.get();
          if (next.isEmpty()) {
            if (!timed || q.isShuttingDown()) {
              return;
            }
            continue;
          }
          int key = next.get();
          checker.handedOut(key);
          if (key < KEYS) {
            requeueing.incrementAndGet();
            try {
              if (!ending) {
                onHandOut.process(this, key, random);
              }
            } finally {
              requeueing.decrementAndGet();
            }
          }
          if (endgame) {
            long until = System.nanoTime() + 50_000;
            while (System.nanoTime() - until < 0) {
              Thread.onSpinWait();
            }
          } else if (random.nextInt(8) == 0) {
            Thread.yield(); // let re-adds land while processing
          }
          checker.finishing(key);
          q.done(key);
        }
      } catch (InterruptedException e) {
        checker.violation("consumer interrupted");
      }
    }

    /** Stops the producers, lets the waiting room empty, drains, checks, and checks threads. */
    void finish(String name) throws InterruptedException {
      for (Thread t : producerThreads) {
        t.join();
      }
      ending = true;
      // Truly asynchronous from here: consumers finish their requeues, the timer pool
      // promotes the last delayed items (within milliseconds).
      Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> requeueing.get() == 0);
      if (q instanceof DelayingQueue<Integer> d) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> d.waitingCount() == 0);
      }
      assertTrue(q.shutDownWithDrain(Duration.ofSeconds(60)), name + ": drain completed");
      for (Thread t : consumerThreads) {
        t.join(10_000);
        assertFalse(t.isAlive(), t.getName() + " exited after shutdown");
      }
      checker.verify(name, true);
      assertEquals(0, q.size());
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
        Set<Thread> started = new HashSet<>(ThreadOwnershipTest.toolkitThreads());
        started.removeAll(toolkitThreadsBefore);
        return started.isEmpty();
      });
    }
  }

  /** A thread that has started {@code q.shutDownWithDrain()}. */
  private static Thread startDrain(WorkQueue<?> q) {
    Thread drain = new Thread(() -> {
      try {
        q.shutDownWithDrain();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    drain.start();
    return drain;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
