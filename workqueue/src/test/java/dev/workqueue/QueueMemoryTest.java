package dev.workqueue;

import static dev.workqueue.testsupport.Reachability.collected;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.StressScale;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Nothing the caller dropped stays reachable, for the queue kinds {@code WorkQueueTest} and
 * {@code DelayingQueueMemoryTest} do not cover: the rate-limiting queue (whose limiter holds
 * per-item state until {@code forget}, or until a bounded limiter evicts it) and the
 * controller (the scheduling module tests its queue likewise); and a million distinct keys that fail and are never forgotten stay
 * bounded by a bounded limiter.
 */
class QueueMemoryTest {
  private static final Duration MS = Duration.ofMillis(1);
  private final FakeClock clock = new FakeClock();

  /** A key with identity: only the test's reference and the queue's keep it alive. */
  record Key(int id) {}

  /** addRateLimited, the back-off passes, get, done: the limiter still counts the failure. */
  private WeakReference<Key> failOnceAndFinish(RateLimitingQueue<Key> q) throws Exception {
    Key key = new Key(1);
    q.addRateLimited(key);
    clock.step(Duration.ofSeconds(1));
    Optional<Key> taken = q.poll(Duration.ZERO);
    assertEquals(Optional.of(key), taken);
    q.done(taken.get());
    return new WeakReference<>(key);
  }

  @Test
  void rateLimitedItem_isCollectableAfterDoneAndForget() throws Exception {
    RateLimitingQueue<Key> q = WorkQueue.<Key>builder().clock(clock)
        .buildRateLimiting(RateLimiters.exponential(MS, Duration.ofSeconds(1)));
    WeakReference<Key> ref = failOnceAndFinish(q);
    q.forget(new Key(1)); // an equal key is enough
    assertTrue(collected(ref), "the queue or its limiter still references a forgotten item");
  }

  @Test
  void rateLimitedItem_neverForgotten_isKeptByAnUnboundedLimiter_asDocumented()
      throws Exception {
    RateLimitingQueue<Key> q = WorkQueue.<Key>builder().clock(clock)
        .buildRateLimiting(RateLimiters.exponential(MS, Duration.ofSeconds(1)));
    WeakReference<Key> ref = failOnceAndFinish(q);
    // The caller's duty (RateLimiter's Javadoc): without forget the failure count stays.
    assertTrue(!collected(ref, 3), "the unbounded limiter keeps the item until forget");
    assertEquals(1, q.numRequeues(new Key(1)));
  }

  @Test
  void rateLimitedItem_neverForgotten_isCollectableOnceABoundedLimiterExpiresIt()
      throws Exception {
    RateLimiter<Key> limiter = RateLimiters.exponentialBuilder(MS, Duration.ofSeconds(1))
        .expireAfterInactivity(Duration.ofMinutes(1)).clock(clock).build();
    RateLimitingQueue<Key> q = WorkQueue.<Key>builder().clock(clock).buildRateLimiting(limiter);
    WeakReference<Key> ref = failOnceAndFinish(q);
    clock.step(Duration.ofMinutes(2));
    for (int i = 0; i < 100; i++) {
      limiter.when(new Key(1000 + i)); // the bounded state cleans up on its own calls
    }
    assertTrue(collected(ref), "the bounded limiter still references an expired item");
  }

  @Test
  void controller_letsGoOfReconciledKeys() throws Exception {
    AtomicInteger reconciled = new AtomicInteger();
    Controller<Key> c = Controller.<Key>builder("memory").clock(clock).workers(2)
        .reconciler(key -> {
          reconciled.incrementAndGet();
          return key.id() % 2 == 0 ? Result.success() : null;
        })
        .build();
    c.start();
    try {
      List<WeakReference<Key>> refs = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Key k = new Key(i);
        refs.add(new WeakReference<>(k));
        c.add(k);
      }
      await().atMost(10, SECONDS).until(() -> reconciled.get() == 10);
      for (WeakReference<Key> ref : refs) {
        // the last reconciles may still be finishing: wait for their done
        await().atMost(10, SECONDS).pollInterval(Duration.ofMillis(10)).until(() -> {
          System.gc();
          return ref.get() == null;
        });
      }
    } finally {
      assertTrue(c.stop(Duration.ofHours(1)).completed()); // on the fake clock: the workers exit at once
    }
  }

  /**
   * Distinct keys fail once each through the queue and are never forgotten (objects deleted
   * while failing): with {@code maximumTrackedItems(1000)} at most 1000 of them stay
   * reachable. Keys are sampled (one in 100) with weak references. 100,000 keys in
   * {@code mvn verify} (under a second); {@code STRESS_SCALE=10} makes it a million.
   * ({@code PerItemLimiterBuilderTest} sends a million keys through the limiter alone.)
   */
  @Test
  void distinctFailingKeys_neverForgotten_stayBoundedByABoundedLimiter() throws Exception {
    int keys = 100_000 * StressScale.factor();
    int bound = 1_000;
    RateLimiter<Key> limiter = RateLimiters.exponentialBuilder(MS, Duration.ofSeconds(1))
        .maximumTrackedItems(bound).clock(clock).build();
    RateLimitingQueue<Key> q = WorkQueue.<Key>builder().clock(clock).buildRateLimiting(limiter);
    List<WeakReference<Key>> sample = new ArrayList<>();
    int batch = 10_000;
    for (int start = 0; start < keys; start += batch) {
      for (int i = start; i < start + batch; i++) {
        Key k = new Key(i);
        if (i % 100 == 0) {
          sample.add(new WeakReference<>(k));
        }
        q.addRateLimited(k);
      }
      clock.step(MS); // every first failure waits 1 ms
      for (Optional<Key> next = q.poll(Duration.ZERO); next.isPresent();
          next = q.poll(Duration.ZERO)) {
        q.done(next.get()); // failed again, and then the object was deleted: no forget
      }
    }
    assertEquals(0, q.size());
    assertEquals(0, q.waitingCount());
    System.gc();
    long alive = sample.stream().filter(r -> r.get() != null).count();
    System.out.printf("Distinct failing keys: %d keys, %d of %d sampled still reachable (bound %d)%n",
        keys, alive, sample.size(), bound);
    assertTrue(alive <= bound, alive + " of " + sample.size() + " sampled keys still reachable");
  }
}
