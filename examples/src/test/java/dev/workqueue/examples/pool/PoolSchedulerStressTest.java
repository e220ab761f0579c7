package dev.workqueue.examples.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.Clock;
import dev.workqueue.examples.pool.PoolClaimDemo.FakePool;
import dev.workqueue.examples.pool.PoolScheduler.Request;
import dev.workqueue.examples.pool.PoolScheduler.Settings;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scale-up simulation of the Go scheduler's stress tests, on the real clock and the
 * scheduler's own thread: many callers enqueue at once, a third of the claims conflict, and
 * enqueues race shutdown. Sizes scale with {@code STRESS_SCALE} (default 1: a few seconds).
 */
class PoolSchedulerStressTest {
  private static final int SCALE = StressScale.factor();
  private final ExecutorService claims = Executors.newCachedThreadPool();
  private final Queue<Throwable> errors = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stopClaims() throws InterruptedException {
    claims.shutdown();
    assertTrue(claims.awaitTermination(10, TimeUnit.SECONDS));
  }

  private PoolScheduler start(FakePool pool, int buffer) {
    Settings settings = new Settings(Duration.ofMillis(300), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofSeconds(2), 128, buffer);
    PoolScheduler scheduler = new PoolScheduler("stress", pool, settings, Clock.system(), claims);
    scheduler.start();
    return scheduler;
  }

  /** Starts {@code body(n)} on threads 0 to {@code threads - 1}. */
  private List<Thread> callers(int threads, IntConsumer body) {
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      all.add(new Thread(() -> {
        try {
          body.accept(id);
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "stress-caller-" + t));
    }
    all.forEach(Thread::start);
    return all;
  }

  private void join(List<Thread> callers) throws InterruptedException {
    for (Thread t : callers) {
      t.join(TimeUnit.SECONDS.toMillis(30));
      assertFalse(t.isAlive(), t.getName() + " hangs");
    }
    assertEquals(List.of(), List.copyOf(errors));
  }

  private static boolean allEnded(Queue<Request> requests) {
    return requests.stream().allMatch(r -> r.pod().isDone());
  }

  @Test
  void aBurstIntoAPoolWithConflicts_claimsEveryPodOnce_raisesOneScaleUp_andEveryRequestEnds()
      throws Exception {
    int pods = 500 * SCALE;
    int requests = 2000 * SCALE;
    FakePool pool = new FakePool(Clock.system(), Duration.ofMillis(30), Duration.ofMillis(1), 0.3);
    pool.addIdle(pods);
    PoolScheduler scheduler = start(pool, requests);
    Queue<Request> all = new ConcurrentLinkedQueue<>();
    join(callers(8, t -> {
      for (int i = t; i < requests; i += 8) {
        Request r = Request.of("req-" + i);
        assertTrue(scheduler.enqueue(r));
        all.add(r);
      }
    }));
    await().atMost(Duration.ofSeconds(60)).until(() -> scheduler.stats().claimed() == pods);
    assertEquals(requests - pods, scheduler.stats().outstanding(), "the rest wait for a pod");
    assertTrue(scheduler.shutdown(Duration.ofSeconds(5)));

    await().atMost(Duration.ofSeconds(10)).until(() -> allEnded(all)); // (claims under way)
    Set<String> handedOut = new HashSet<>();
    for (Request r : all) {
      if (!r.pod().isCompletedExceptionally()) {
        assertTrue(handedOut.add(r.pod().join()), r.pod().join() + " went to two requests");
      }
    }
    assertEquals(pods, handedOut.size());
    pool.claims.forEach((pod, n) -> assertEquals(1, n, pod + " claimed " + n + " times"));
    assertEquals(0, pool.doubleHandOuts.get(), "no claim of a pod already taken");
    assertTrue(scheduler.stats().conflicts() > pods / 5, "conflicts: " + scheduler.stats());
    assertEquals(1, scheduler.stats().scaleUps(), "one burst, one scale-up signal");
  }

  @Test
  void enqueuesRacingShutdown_neitherHangs_andEveryAcceptedRequestEnds() throws Exception {
    for (int round = 0; round < 5 * SCALE; round++) {
      FakePool pool = new FakePool(Clock.system(), Duration.ofMillis(30), Duration.ZERO, 0.1);
      pool.addIdle(50);
      PoolScheduler scheduler = start(pool, 256);
      Queue<Request> accepted = new ConcurrentLinkedQueue<>();
      Queue<Request> refused = new ConcurrentLinkedQueue<>();
      AtomicBoolean shutDown = new AtomicBoolean();
      List<Thread> callers = callers(4, t -> {
        for (int i = 0; ; i++) {
          Request r = Request.of("race-" + t + "-" + i);
          if (scheduler.enqueue(r)) {
            accepted.add(r);
          } else if (refused.add(r) && shutDown.get()) {
            return;
          } else {
            Thread.yield(); // the buffer is full
          }
        }
      });
      await().atMost(Duration.ofSeconds(30)).until(() -> accepted.size() >= 200);
      assertTrue(scheduler.shutdown(Duration.ofSeconds(5)));
      shutDown.set(true);
      join(callers);
      // Claims under way at the shutdown end their requests when they return.
      await().atMost(Duration.ofSeconds(10)).until(() -> allEnded(accepted));
      refused.forEach(r -> assertFalse(r.pod().isDone(), "a refused request is left alone"));
      long claimed = accepted.stream().filter(r -> !r.pod().isCompletedExceptionally()).count();
      assertEquals(pool.claims.values().stream().mapToInt(Integer::intValue).sum(), claimed);
    }
  }
}
