package dev.workqueue.examples.pool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The seed's stress tests, on the real clock with the scheduler's own threads: 2000 requests
 * against 500 pods, conflicts on ~30% of first attempts, an enqueue and idle-notification
 * storm, enqueues racing shutdown. Sizes scale with {@code STRESS_SCALE} (environment) or
 * {@code stress.scale} (system property), read as the workqueue module's stress tests read
 * it: default 1, a few seconds in all.
 */
class PoolSchedulerStressTest {

  private static int scale() {
    String v = System.getProperty("stress.scale", System.getenv("STRESS_SCALE"));
    if (v == null || v.isBlank()) {
      return 1;
    }
    int f = Integer.parseInt(v.trim());
    if (f < 1) {
      throw new IllegalArgumentException("STRESS_SCALE must be >= 1, was " + f);
    }
    return f;
  }

  private static Set<String> liveThreads(String pool) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("poolsched-" + pool))
        .map(Thread::getName)
        .collect(Collectors.toSet());
  }

  private static FakeApiServer.Builder fake() {
    return FakeApiServer.builder(Clock.system())
        .informerLag(Duration.ofMillis(30))
        .claimLatency(Duration.ZERO, Duration.ofMillis(2));
  }

  /** Enqueues {@code count} requests from {@code threads} threads at once; all must be accepted. */
  private static List<ClaimRequest> enqueueConcurrently(PoolScheduler scheduler, int count,
      int threads) throws InterruptedException {
    ConcurrentLinkedQueue<ClaimRequest> all = new ConcurrentLinkedQueue<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> callers = new ArrayList<>();
    AtomicBoolean refused = new AtomicBoolean();
    for (int t = 0; t < threads; t++) {
      int first = t;
      Thread caller = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = first; i < count; i += threads) {
          ClaimRequest r = ClaimRequest.of("req-" + i);
          if (!scheduler.enqueue(r)) {
            refused.set(true);
          }
          all.add(r);
        }
      }, "stress-caller-" + t);
      caller.start();
      callers.add(caller);
    }
    go.countDown();
    for (Thread caller : callers) {
      caller.join(TimeUnit.SECONDS.toMillis(30));
    }
    assertFalse(refused.get(), "the buffer holds every request");
    assertEquals(count, all.size());
    return new ArrayList<>(all);
  }

  private static boolean succeeded(ClaimRequest r) {
    return r.result().isDone() && !r.result().isCompletedExceptionally();
  }

  private static ClaimException.Reason reason(ClaimRequest r) {
    try {
      r.result().join();
      throw new AssertionError(r + " succeeded");
    } catch (CompletionException e) {
      return ((ClaimException) e.getCause()).reason();
    }
  }

  /** Every pod the results name was claimed exactly once in the fake, and by that request. */
  private static void assertEachPodClaimedOnceByItsRequest(FakeApiServer api,
      List<ClaimRequest> requests, int pods) {
    Set<PodRef> handedOut = new HashSet<>();
    for (ClaimRequest r : requests) {
      if (succeeded(r)) {
        PodRef pod = r.result().join().pod();
        assertTrue(handedOut.add(pod), pod + " handed to two requests");
        assertEquals(r.id(), api.ownerOf(pod.name()));
      }
    }
    assertEquals(pods, handedOut.size());
    Map<String, Integer> counts = api.claimCounts();
    assertEquals(pods, counts.size());
    counts.forEach((pod, n) -> assertEquals(1, n, pod + " claimed " + n + " times"));
  }

  @Test
  void extremeScale_2000RequestsAgainst500Pods_everyPodClaimedOnce_everyRequestEnds()
      throws Exception {
    int pods = 500 * scale();
    int requests = 2000 * scale();
    FakeApiServer api = fake().build();
    api.addIdlePods("extreme", pods);
    PoolScheduler scheduler = PoolScheduler.builder("extreme", api).requestBuffer(requests).build();
    scheduler.start();

    List<ClaimRequest> all = enqueueConcurrently(scheduler, requests, 8);
    await().atMost(Duration.ofSeconds(60)).until(() -> scheduler.snapshot().claimed() == pods);
    Snapshot before = scheduler.snapshot();
    assertEquals(requests - pods, before.queueLen(), "the rest wait for a pod");

    assertTrue(scheduler.shutdown(Duration.ofSeconds(5)));
    assertEquals(Set.of(), liveThreads("extreme"));
    for (ClaimRequest r : all) {
      assertTrue(r.isDone(), r + " ended");
      if (!succeeded(r)) {
        assertEquals(ClaimException.Reason.SHUT_DOWN, reason(r));
      }
    }
    assertEachPodClaimedOnceByItsRequest(api, all, pods);
    assertEquals(0, api.unexpectedPhaseAttempts(), "no pod was handed out twice");
    Snapshot s = scheduler.snapshot();
    assertEquals(0, s.queueLen());
    assertEquals(pods, s.claimed());
    assertEquals(0, s.conflicts());
    assertEquals(1, s.scaleUps(), "one burst, one scale-up signal");
    assertEquals(1, api.scaleUpMarks("extreme"));
  }

  @Test
  void conflictsOnAThirdOfFirstAttempts_everyPodIsStillClaimed() throws Exception {
    int pods = 500 * scale();
    FakeApiServer api = fake().conflictOnFirstAttempt(0.3).seed(42).build();
    api.addIdlePods("conflicts", pods);
    int injected = api.pendingInjectedConflicts();
    assertTrue(injected > pods / 5 && injected < pods * 2 / 5, "about 30%: " + injected);
    PoolScheduler scheduler = PoolScheduler.builder("conflicts", api)
        .requestBuffer(pods)
        .reservationTtl(Duration.ofMillis(300)) // conflicted pods come back after it
        .build();
    scheduler.start();

    List<ClaimRequest> all = enqueueConcurrently(scheduler, pods, 8);
    await().atMost(Duration.ofSeconds(60)).until(() -> all.stream().allMatch(ClaimRequest::isDone));
    assertTrue(scheduler.shutdown(Duration.ofSeconds(5)));
    assertEquals(Set.of(), liveThreads("conflicts"));

    assertTrue(all.stream().allMatch(PoolSchedulerStressTest::succeeded), "every request got a pod");
    assertEachPodClaimedOnceByItsRequest(api, all, pods);
    assertEquals(0, api.pendingInjectedConflicts(), "every injected conflict was met");
    Snapshot s = scheduler.snapshot();
    assertEquals(api.conflictsAnswered(), s.conflicts());
    assertTrue(s.conflicts() >= injected);
    int attempts = all.stream().mapToInt(r -> r.result().join().attempts()).sum();
    assertEquals(pods + s.conflicts(), attempts, "one write per conflict, one per claim");
  }

  @Test
  void anEnqueueAndIdleNotificationStorm_thenShutdownReturnsWithin5s() throws Exception {
    String pool = "storm";
    FakeApiServer api = fake().informerLag(Duration.ofMillis(20)).build();
    api.addIdlePods(pool, 100);
    PoolScheduler scheduler = PoolScheduler.builder(pool, api)
        .reservationTtl(Duration.ofMillis(100))
        .idleNotifyDelay(Duration.ofMillis(20))
        .build();
    scheduler.start();

    AtomicBoolean stop = new AtomicBoolean();
    ConcurrentLinkedQueue<ClaimRequest> accepted = new ConcurrentLinkedQueue<>();
    LinkedBlockingQueue<PodRef> toRecycle = new LinkedBlockingQueue<>();
    List<Thread> load = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      int id = t;
      load.add(new Thread(() -> {
        for (int i = 0; !stop.get(); i++) {
          ClaimRequest r = ClaimRequest.withTimeout("storm-" + id + "-" + i, Duration.ofMillis(50));
          if (scheduler.enqueue(r)) {
            accepted.add(r);
            r.result().thenAccept(claim -> toRecycle.add(claim.pod()));
          } else {
            Thread.yield(); // backpressure
          }
        }
      }, "stress-enqueue-" + t));
    }
    load.add(new Thread(() -> {
      while (!stop.get()) {
        scheduler.notifyIdle();
        Thread.yield();
      }
    }, "stress-notify"));
    load.add(new Thread(() -> { // the reconciler: sandboxes end, pods go back to Idle
      try {
        while (!stop.get()) {
          PodRef pod = toRecycle.poll(10, TimeUnit.MILLISECONDS);
          if (pod != null) {
            api.recycle(pod.name());
            scheduler.notifyIdle();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "stress-recycler"));
    load.forEach(Thread::start);
    Thread.sleep(600L * scale()); // the storm's length: load, not a wait for a result
    stop.set(true);
    for (Thread t : load) {
      t.join(TimeUnit.SECONDS.toMillis(5));
      assertFalse(t.isAlive(), t.getName());
    }

    assertTrue(scheduler.shutdown(Duration.ofSeconds(5)), "shutdown within 5 s");
    assertEquals(Set.of(), liveThreads(pool));
    Map<PodRef, Integer> claimedHere = new HashMap<>();
    for (ClaimRequest r : accepted) {
      assertTrue(r.isDone(), r + " ended");
      if (succeeded(r)) {
        claimedHere.merge(r.result().join().pod(), 1, Integer::sum);
      } else {
        ClaimException.Reason why = reason(r);
        assertTrue(why == ClaimException.Reason.TIMED_OUT || why == ClaimException.Reason.SHUT_DOWN,
            r + ": " + why);
      }
    }
    assertFalse(claimedHere.isEmpty(), "the storm claimed pods");
    claimedHere.forEach((pod, n) -> assertEquals(api.claimsOf(pod.name()), n, pod.name()));
    assertEquals(0, scheduler.snapshot().queueLen());
  }

  @Test
  void enqueuesRacingShutdown_neitherHangs_andEveryAcceptedRequestEnds() throws Exception {
    for (int round = 0; round < 5 * scale(); round++) {
      String pool = "race-" + round;
      FakeApiServer api = fake().build();
      api.addIdlePods(pool, 50);
      PoolScheduler scheduler = PoolScheduler.builder(pool, api).requestBuffer(256).build();
      scheduler.start();

      ConcurrentLinkedQueue<ClaimRequest> accepted = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<ClaimRequest> refused = new ConcurrentLinkedQueue<>();
      List<Thread> callers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        callers.add(new Thread(() -> {
          for (int i = 0; ; i++) {
            ClaimRequest r = ClaimRequest.of("race-" + id + "-" + i);
            if (scheduler.enqueue(r)) {
              accepted.add(r);
            } else {
              refused.add(r);
              if (scheduler.isShutdown()) {
                return;
              }
              Thread.yield();
            }
          }
        }, "stress-race-" + t));
      }
      callers.forEach(Thread::start);
      await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.snapshot().enqueued() >= 200);
      assertTrue(scheduler.shutdown(Duration.ofSeconds(5)));
      for (Thread t : callers) {
        t.join(TimeUnit.SECONDS.toMillis(5));
        assertFalse(t.isAlive(), t.getName() + " hangs");
      }
      assertEquals(Set.of(), liveThreads(pool));
      for (ClaimRequest r : accepted) {
        assertTrue(r.isDone(), r + " ended");
        if (!succeeded(r)) {
          assertEquals(ClaimException.Reason.SHUT_DOWN, reason(r));
        }
      }
      for (ClaimRequest r : refused) {
        assertFalse(r.isDone(), "a refused request is left alone");
      }
      long claimed = accepted.stream().filter(PoolSchedulerStressTest::succeeded).count();
      assertEquals(api.claimCounts().values().stream().mapToInt(Integer::intValue).sum(), claimed);
      assertEquals(0, scheduler.snapshot().queueLen());
    }
  }
}
