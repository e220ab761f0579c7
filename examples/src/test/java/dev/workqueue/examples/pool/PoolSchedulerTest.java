package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler driven by hand: a {@link FakeClock}, claims on a {@link ManualExecutor}, and
 * the scheduler's rounds run in the test thread ({@code runPending}), so every step is
 * deterministic.
 */
class PoolSchedulerTest {
  private static final String POOL = "pool-a";

  private final FakeClock clock = new FakeClock();
  private final ManualExecutor claims = new ManualExecutor();
  private FakeApiServer api = FakeApiServer.builder(clock).build();
  private PoolScheduler scheduler = newScheduler(api);

  private PoolScheduler newScheduler(PodApi podApi) {
    return PoolScheduler.builder(POOL, podApi).clock(clock).claimExecutor(claims).build();
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    scheduler.shutdown(Duration.ofSeconds(1));
  }

  /** Runs the scheduler's rounds until it has nothing queued. */
  private void rounds() {
    while (scheduler.runPending()) {
      // next round
    }
  }

  /** Rounds and claims until both are quiet. */
  private void settle() {
    do {
      rounds();
    } while (claims.runAll() > 0);
  }

  private ClaimRequest enqueue(String id) {
    ClaimRequest r = ClaimRequest.of(id);
    assertTrue(scheduler.enqueue(r), id + " accepted");
    return r;
  }

  private static PodRef podOf(ClaimRequest r) {
    return r.result().join().pod();
  }

  private static ClaimException.Reason failure(ClaimRequest r) {
    CompletionException e = assertThrows(CompletionException.class, () -> r.result().join());
    return assertInstanceOf(ClaimException.class, e.getCause()).reason();
  }

  // ---- ready queue: FIFO, dedup by UID ---------------------------------------------------

  @Test
  void repeatedRefreshes_admitEachPodOnce_andPodsGoOutInTheOrderFirstSeen() {
    List<PodRef> pods = api.addIdlePods(POOL, 3);
    scheduler.notifyIdle();
    clock.stepMillis(200);
    rounds();
    assertEquals(3, scheduler.snapshot().idleReady());

    scheduler.notifyIdle(); // a second listing of the same pods
    clock.stepMillis(200);
    rounds();
    assertEquals(2, api.listCalls());
    assertEquals(3, scheduler.snapshot().idleReady(), "no pod admitted twice");

    List<ClaimRequest> requests = List.of(enqueue("r0"), enqueue("r1"), enqueue("r2"), enqueue("r3"));
    settle();
    for (int i = 0; i < 3; i++) {
      assertEquals(pods.get(i), podOf(requests.get(i)));
      assertEquals(1, api.claimsOf(pods.get(i).name()));
    }
    assertFalse(requests.get(3).isDone(), "three pods, three claims");
  }

  @Test
  void aListingThatNamesAPodTwice_admitsItOnce() {
    PodRef a = new PodRef("a", "uid-a");
    PodRef b = new PodRef("b", "uid-b");
    List<ClaimRequest> seen = new ArrayList<>();
    PodApi duplicating = new PodApi() {
      @Override
      public List<PodRef> listIdle(String pool) {
        return List.of(a, b, a, b, a);
      }

      @Override
      public ClaimOutcome claim(String pool, PodRef pod, ClaimRequest request) {
        seen.add(request);
        return ClaimOutcome.CLAIMED;
      }

      @Override
      public void markScaleUpPending(String pool, int waiting) {}
    };
    scheduler = newScheduler(duplicating);
    ClaimRequest r0 = enqueue("r0");
    ClaimRequest r1 = enqueue("r1");
    ClaimRequest r2 = enqueue("r2");
    settle();
    assertEquals(a, podOf(r0));
    assertEquals(b, podOf(r1));
    assertFalse(r2.isDone(), "a and b are reserved; the listing's repeats are not new pods");
    assertEquals(2, seen.size());
  }

  // ---- reservations ----------------------------------------------------------------------

  @Test
  void aClaimedPodStillListedByAStaleCache_isNotHandedOutAgain() {
    api = FakeApiServer.builder(clock).informerLag(Duration.ofSeconds(1)).build();
    scheduler = newScheduler(api);
    PodRef a = api.addIdlePods(POOL, 1).get(0);
    ClaimRequest r1 = enqueue("r1");
    settle();
    assertEquals(a, podOf(r1));
    assertEquals(List.of(a), api.listIdle(POOL), "the cache still shows it Idle");

    ClaimRequest r2 = enqueue("r2");
    settle();
    assertFalse(r2.isDone());
    assertEquals(1, api.claimAttempts(), "no second claim of a");
    assertEquals(0, api.unexpectedPhaseAttempts());
    Snapshot s = scheduler.snapshot();
    assertEquals(0, s.idleReady());
    assertEquals(1, s.reserved());
  }

  @Test
  void aReservation_expiresAfterItsTtl() {
    // A cache lag longer than the TTL: the stale "Idle" outlives the reservation.
    api = FakeApiServer.builder(clock).informerLag(Duration.ofSeconds(5)).build();
    scheduler = newScheduler(api);
    api.addIdlePods(POOL, 1);
    enqueue("r1");
    settle();

    clock.stepMillis(1500);
    scheduler.notifyIdle();
    clock.stepMillis(200); // 1.7 s: reserved
    rounds();
    assertEquals(0, scheduler.snapshot().idleReady());

    clock.stepMillis(300);
    scheduler.notifyIdle();
    clock.stepMillis(200); // 2.2 s: the reservation is gone, the stale listing admits it
    rounds();
    Snapshot s = scheduler.snapshot();
    assertEquals(1, s.idleReady());
    assertEquals(0, s.reserved());
  }

  @Test
  void aConflictedPod_isTakenAgainWhenItsReservationRunsOut_notAtTheNextPoll() {
    PodRef a = api.addIdlePods(POOL, 1).get(0);
    api.injectConflict(a.name());
    ClaimRequest r1 = enqueue("r1");
    settle();
    assertFalse(r1.isDone(), "conflicted, back in line");
    assertEquals(1, scheduler.snapshot().conflicts());
    assertEquals(Duration.ofSeconds(10), scheduler.snapshot().pollInterval());

    clock.step(Duration.ofSeconds(2).minusNanos(1));
    settle();
    assertFalse(r1.isDone(), "a is still reserved");

    clock.step(Duration.ofNanos(1));
    settle();
    Claim claim = r1.result().join();
    assertEquals(a, claim.pod());
    assertEquals(2, claim.attempts());
    assertEquals(0, scheduler.snapshot().polls());
  }

  @Test
  void anApiError_failsTheRequest_andReleasesThePodForTheNext() {
    PodRef a = api.addIdlePods(POOL, 1).get(0);
    IllegalStateException forbidden = new IllegalStateException("403 forbidden");
    api.injectFailure(a.name(), forbidden);
    ClaimRequest r1 = enqueue("r1");
    settle();
    assertEquals(ClaimException.Reason.API_ERROR, failure(r1));
    CompletionException e = assertThrows(CompletionException.class, () -> r1.result().join());
    assertSame(forbidden, e.getCause().getCause());

    ClaimRequest r2 = enqueue("r2");
    settle();
    assertEquals(a, podOf(r2));
    assertEquals(1, scheduler.snapshot().failed());
  }

  // ---- backpressure ----------------------------------------------------------------------

  @Test
  void enqueue_returnsFalseWhenTheBufferIsFull_andTrueOnceARequestHasEnded() {
    scheduler = PoolScheduler.builder(POOL, api).clock(clock).claimExecutor(claims)
        .requestBuffer(3).build();
    ClaimRequest r1 = enqueue("r1");
    enqueue("r2");
    enqueue("r3");
    ClaimRequest r4 = ClaimRequest.of("r4");
    assertFalse(scheduler.enqueue(r4));
    assertFalse(r4.isDone(), "a rejected request is left alone");
    Snapshot s = scheduler.snapshot();
    assertEquals(3, s.queueLen());
    assertEquals(3, s.enqueued());
    assertEquals(1, s.rejected());

    rounds(); // held by the scheduler now, still counted
    assertFalse(scheduler.enqueue(r4));
    r1.result().cancel(false); // withdrawn: its slot is free
    assertTrue(scheduler.enqueue(r4), "the same request, accepted on a retry");
    assertEquals(3, scheduler.snapshot().queueLen());
    assertEquals(2, scheduler.snapshot().rejected());
  }

  @Test
  void enqueueAfterShutdown_returnsFalse_andShutdownFailsWhatWaits() throws Exception {
    ClaimRequest waiting = enqueue("waiting");
    ClaimRequest queued = ClaimRequest.of("queued");
    rounds();
    assertTrue(scheduler.enqueue(queued)); // still in the inbox
    assertTrue(scheduler.shutdown(Duration.ofSeconds(1)));
    assertEquals(ClaimException.Reason.SHUT_DOWN, failure(waiting));
    assertEquals(ClaimException.Reason.SHUT_DOWN, failure(queued));
    assertFalse(scheduler.enqueue(ClaimRequest.of("late")));
    assertEquals(0, scheduler.snapshot().queueLen());
    assertTrue(scheduler.isShutdown());
  }

  @Test
  void aRequestThatTimesOut_failsAtItsDeadlineOnTheSchedulersClock() {
    ClaimRequest r = ClaimRequest.withTimeout("r", Duration.ofSeconds(3));
    assertTrue(scheduler.enqueue(r));
    rounds();
    clock.step(Duration.ofSeconds(3).minusNanos(1));
    rounds();
    assertFalse(r.isDone());
    clock.step(Duration.ofNanos(1));
    rounds();
    assertEquals(ClaimException.Reason.TIMED_OUT, failure(r));
    Snapshot s = scheduler.snapshot();
    assertEquals(1, s.timedOut());
    assertEquals(0, s.queueLen());
  }

  // ---- the poll back-off -----------------------------------------------------------------

  private static final List<Duration> SCHEDULE = List.of(Duration.ofSeconds(10),
      Duration.ofSeconds(20), Duration.ofSeconds(40), Duration.ofSeconds(80),
      Duration.ofSeconds(160), Duration.ofMinutes(5), Duration.ofMinutes(5));

  /** Steps to just before the armed poll (nothing happens), then onto it (a listing). */
  private void expectPollAfter(Duration interval) {
    long lists = api.listCalls();
    long polls = scheduler.snapshot().polls();
    clock.step(interval.minusMillis(1));
    settle();
    assertEquals(lists, api.listCalls(), "no poll before " + interval);
    clock.stepMillis(1);
    settle();
    assertEquals(lists + 1, api.listCalls(), "a poll at " + interval);
    assertEquals(polls + 1, scheduler.snapshot().polls());
  }

  @Test
  void whileNoPodIsIdle_thePollBacksOffFrom10sDoublingTo5min() {
    enqueue("r1");
    settle();
    assertEquals(1, api.listCalls(), "the request found no pod in the cache");
    for (int i = 0; i < SCHEDULE.size(); i++) {
      assertEquals(SCHEDULE.get(i), scheduler.snapshot().pollInterval(), "poll #" + (i + 1));
      expectPollAfter(SCHEDULE.get(i));
    }
    assertEquals(Duration.ofMinutes(5), scheduler.snapshot().pollInterval());
  }

  private void backOffTo40s() {
    enqueue("r1");
    settle();
    expectPollAfter(Duration.ofSeconds(10));
    expectPollAfter(Duration.ofSeconds(20));
    assertEquals(Duration.ofSeconds(40), scheduler.snapshot().pollInterval());
  }

  @Test
  void aNewRequest_resetsTheBackoffTo10s() {
    backOffTo40s();
    clock.step(Duration.ofSeconds(15));
    enqueue("r2");
    settle();
    assertEquals(Duration.ofSeconds(10), scheduler.snapshot().pollInterval());
    expectPollAfter(Duration.ofSeconds(10)); // 25 s into a 40 s wait: the old timer is gone
    assertEquals(Duration.ofSeconds(20), scheduler.snapshot().pollInterval());
  }

  @Test
  void anIdleNotification_resetsTheBackoffTo10s_onceItsDelayHasPassed() {
    backOffTo40s();
    scheduler.notifyIdle();
    clock.stepMillis(199);
    settle();
    assertEquals(Duration.ofSeconds(40), scheduler.snapshot().pollInterval());
    clock.stepMillis(1);
    settle();
    assertEquals(Duration.ofSeconds(10), scheduler.snapshot().pollInterval());
    expectPollAfter(Duration.ofSeconds(10));
  }

  @Test
  void aConflict_resetsTheBackoffTo10s() {
    // A claim write slower than the default TTL would let the poll re-admit a: keep it reserved.
    scheduler = PoolScheduler.builder(POOL, api).clock(clock).claimExecutor(claims)
        .reservationTtl(Duration.ofMinutes(10)).build();
    PodRef a = api.addIdlePods(POOL, 1).get(0);
    api.injectConflict(a.name());
    enqueue("r1"); // gets a; its claim waits in the executor
    enqueue("r2"); // starves
    rounds();
    assertEquals(2, claims.pending(), "r1's claim and the scale-up write");
    for (Duration d : SCHEDULE.subList(0, 2)) {
      clock.step(d);
      rounds();
    }
    assertEquals(Duration.ofSeconds(40), scheduler.snapshot().pollInterval());

    claims.runAll(); // r1's claim conflicts
    rounds();
    assertEquals(1, scheduler.snapshot().conflicts());
    assertEquals(Duration.ofSeconds(10), scheduler.snapshot().pollInterval());
    long lists = api.listCalls();
    clock.step(Duration.ofSeconds(10));
    rounds();
    assertEquals(lists + 1, api.listCalls(), "polled 10 s after the conflict");
  }

  @Test
  void aRoundThatHandsOutAPod_resetsTheBackoff_andNothingWaitingStopsThePoll() {
    backOffTo40s();
    enqueue("r2");
    settle();
    expectPollAfter(Duration.ofSeconds(10)); // now 20 s
    api.addIdlePods(POOL, 1);
    expectPollAfter(Duration.ofSeconds(20)); // finds the pod, gives it to r1; r2 still waits
    assertEquals(Duration.ofSeconds(10), scheduler.snapshot().pollInterval());

    api.addIdlePods(POOL, 1);
    expectPollAfter(Duration.ofSeconds(10)); // r2 gets it: nothing waits
    assertEquals(Duration.ZERO, scheduler.snapshot().pollInterval());
    long lists = api.listCalls();
    clock.step(Duration.ofMinutes(10));
    settle();
    assertEquals(lists, api.listCalls(), "no poll while nothing waits");
  }

  // ---- idle notifications ----------------------------------------------------------------

  @Test
  void aStormOfIdleNotifications_listsOncePerDelay_andCatchesThePodOfTheLastOne() {
    api = FakeApiServer.builder(clock).informerLag(Duration.ofMillis(150)).build();
    scheduler = newScheduler(api);
    List<PodRef> pods = api.addIdlePods(POOL, 2);
    enqueue("r1");
    enqueue("r2");
    settle(); // both pods taken
    clock.step(Duration.ofSeconds(3)); // their reservations are long gone
    ClaimRequest r3 = enqueue("r3");
    ClaimRequest r4 = enqueue("r4");
    settle();
    long lists = api.listCalls();

    api.recycle(pods.get(0).name()); // in the cache 150 ms from now
    for (int i = 0; i < 100; i++) { // a notification every millisecond for 100 ms
      scheduler.notifyIdle();
      clock.stepMillis(1);
      settle();
    }
    api.recycle(pods.get(1).name()); // in the cache at 250 ms
    scheduler.notifyIdle(); // the last one, at 100 ms
    clock.stepMillis(100);
    settle();
    assertEquals(lists + 1, api.listCalls(), "one listing, 200 ms after the first notification");
    assertEquals(pods.get(0), podOf(r3));
    assertFalse(r4.isDone(), "the second pod is not in the cache yet");

    clock.stepMillis(99);
    settle();
    assertEquals(lists + 1, api.listCalls());
    clock.stepMillis(1); // 200 ms after the last notification
    settle();
    assertEquals(lists + 2, api.listCalls());
    assertEquals(pods.get(1), podOf(r4));
  }

  // ---- scale-up --------------------------------------------------------------------------

  @Test
  void aBurstIntoAnEmptyPool_raisesTheScaleUpSignalOnce() {
    for (int i = 0; i < 50; i++) {
      enqueue("burst-" + i);
      if (i % 7 == 0) {
        settle();
      }
    }
    settle();
    clock.step(Duration.ofSeconds(10));
    settle();
    assertEquals(1, api.scaleUpMarks(POOL));
    assertEquals(1, scheduler.snapshot().scaleUps());

    // The episode ends when nothing waits; the next burst raises it again.
    api.addIdlePods(POOL, 50);
    scheduler.notifyIdle();
    clock.stepMillis(200);
    settle();
    assertEquals(50, scheduler.snapshot().claimed());
    enqueue("second-burst-1");
    enqueue("second-burst-2");
    settle();
    assertEquals(2, api.scaleUpMarks(POOL));
  }

  @Test
  void aScaleUpStillBeingWritten_absorbsTheNextEpisodesSignal() {
    enqueue("r1");
    rounds(); // episode 1 raises; the write waits in the executor
    assertEquals(1, scheduler.snapshot().scaleUps());
    api.addIdlePods(POOL, 1);
    scheduler.notifyIdle();
    clock.stepMillis(200);
    rounds(); // r1 gets the pod: the episode ends
    enqueue("r2");
    rounds(); // episode 2, while the first write is still under way
    assertEquals(1, scheduler.snapshot().scaleUps());
    claims.runAll();
    assertEquals(1, api.scaleUpMarks(POOL));
  }

  // ---- the snapshot ----------------------------------------------------------------------

  @Test
  void theSnapshot_countsWhatHappened() {
    List<PodRef> pods = api.addIdlePods(POOL, 4);
    api.injectConflict(pods.get(0).name());
    api.injectFailure(pods.get(1).name(), new IllegalStateException("500"));
    ClaimRequest conflicted = enqueue("conflicted");
    ClaimRequest broken = enqueue("broken");
    ClaimRequest ok = enqueue("ok");
    ClaimRequest timesOut = ClaimRequest.withTimeout("times-out", Duration.ofSeconds(1));
    assertTrue(scheduler.enqueue(timesOut));
    rounds();

    Snapshot s = scheduler.snapshot();
    assertEquals(4, s.inflightClaims());
    assertEquals(4, s.reserved());
    assertEquals(0, s.idleReady());
    assertEquals(4, s.queueLen());

    clock.stepMillis(500);
    claims.runAll(); // conflict, API error, success, success
    s = scheduler.snapshot();
    assertEquals(0, s.inflightClaims());
    assertEquals(1, s.queueLen(), "conflicted is requeued; the other three ended");
    assertEquals(2, s.claimed());
    assertEquals(1, s.conflicts());
    assertEquals(1, s.failed());
    assertEquals(3, s.reserved(), "the failed pod's reservation was released");
    assertEquals(clock.nanoTime(), s.lastClaimNanos());
    assertEquals(ClaimException.Reason.API_ERROR, failure(broken));
    assertEquals(pods.get(2), podOf(ok));
    assertEquals(pods.get(3), podOf(timesOut));
    assertNull(api.ownerOf(pods.get(0).name()));

    rounds(); // conflicted is back at the head of the line, and gets the released pod
    s = scheduler.snapshot();
    assertEquals(1, s.inflightClaims());
    assertEquals(4, s.reserved());
    assertEquals(1, s.queueLen());
    claims.runAll();
    assertEquals(pods.get(1), podOf(conflicted));
    s = scheduler.snapshot();
    assertEquals(3, s.claimed());
    assertEquals(0, s.queueLen());
    assertEquals(0, s.timedOut());
    assertEquals(4, s.enqueued());
    assertEquals(0, s.rejected());
    assertEquals(api.listCalls(), s.refreshes());
    assertEquals(0, s.polls());
  }

  // ---- lifecycle and bad input -----------------------------------------------------------

  @Test
  void badArguments_areRejectedAtTheCall() {
    assertThrows(NullPointerException.class, () -> PoolScheduler.builder(null, api));
    assertThrows(NullPointerException.class, () -> PoolScheduler.builder(POOL, null));
    assertThrows(IllegalArgumentException.class, () -> PoolScheduler.builder(" ", api));
    PoolSchedulerBuilder b = PoolScheduler.builder(POOL, api);
    assertThrows(IllegalArgumentException.class, () -> b.maxConcurrentClaims(0));
    assertThrows(IllegalArgumentException.class, () -> b.requestBuffer(0));
    assertThrows(IllegalArgumentException.class, () -> b.reservationTtl(Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> b.pollBackoff(Duration.ofSeconds(10), Duration.ofSeconds(5)));
    assertThrows(IllegalArgumentException.class, () -> b.idleNotifyDelay(Duration.ofMillis(-1)));
    assertThrows(NullPointerException.class, () -> b.clock(null));
    assertThrows(IllegalArgumentException.class,
        () -> ClaimRequest.withTimeout("r", Duration.ZERO));

    assertThrows(NullPointerException.class, () -> scheduler.enqueue(null));
    ClaimRequest r = enqueue("r");
    assertThrows(IllegalStateException.class, () -> scheduler.enqueue(r));
    assertEquals(1, scheduler.snapshot().enqueued(), "the scheduler kept working");
  }

  @Test
  void startTwice_orAfterShutdown_isAnError() throws Exception {
    PoolScheduler s = PoolScheduler.builder("lifecycle", api).clock(clock).build();
    s.start();
    assertThrows(IllegalStateException.class, s::start);
    assertTrue(s.shutdown(Duration.ofSeconds(5)));
    assertThrows(IllegalStateException.class, s::start);
    assertTrue(s.shutdown(Duration.ofSeconds(5)), "idempotent");
  }
}
