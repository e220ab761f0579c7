package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.examples.pool.PoolClaimDemo.FakePool;
import dev.workqueue.examples.pool.PoolScheduler.Request;
import dev.workqueue.examples.pool.PoolScheduler.Settings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler on a {@link FakeClock}, its rounds run in the test thread ({@code runPending})
 * and its claims queued until the test runs them: every step is deterministic.
 */
class PoolSchedulerTest {
  private final FakeClock clock = new FakeClock();
  private final Queue<Runnable> claims = new ConcurrentLinkedQueue<>();
  private final FakePool pool = new FakePool(clock, Duration.ofMillis(150), Duration.ZERO, 0);
  private PoolScheduler scheduler = scheduler(Settings.DEFAULTS);

  private PoolScheduler scheduler(Settings settings) {
    return new PoolScheduler("test", pool, settings, clock, claims::add);
  }

  @AfterEach
  void shutDown() throws InterruptedException {
    scheduler.shutdown(Duration.ofSeconds(1));
  }

  /** Runs rounds, and claims when no round is due, until neither has anything left to do. */
  private void settle() {
    for (int steps = 0; scheduler.runPending() || runClaim(); steps++) {
      assertTrue(steps < 10_000, "the scheduler never settles");
    }
  }

  private boolean runClaim() {
    Runnable claim = claims.poll();
    if (claim != null) {
      claim.run();
    }
    return claim != null;
  }

  private static String podOf(Request r) {
    return r.pod().getNow(null); // null while it waits
  }

  private Request enqueue(String id) {
    Request r = Request.of(id);
    assertTrue(scheduler.enqueue(r), id);
    return r;
  }

  /** Steps to just before {@code interval} (no listing), then onto it (one listing). */
  private void expectPollAfter(Duration interval) {
    assertEquals(interval, scheduler.stats().pollInterval());
    long listings = pool.listings.get();
    clock.step(interval.minusMillis(1));
    settle();
    assertEquals(listings, pool.listings.get(), "no poll before " + interval);
    clock.stepMillis(1);
    settle();
    assertEquals(listings + 1, pool.listings.get(), "a poll at " + interval);
  }

  @Test
  void whileNoPodIsIdle_thePollBacksOff_andAnyReasonToLookResetsIt() {
    Request r1 = enqueue("r1");
    settle();
    assertEquals(1, pool.listings.get(), "r1 found no pod");
    for (int seconds : new int[] {10, 20, 40, 80, 160, 300, 300}) {
      expectPollAfter(Duration.ofSeconds(seconds));
    }
    assertEquals(7, scheduler.stats().polls());
    assertEquals(1, scheduler.stats().scaleUps(), "one starvation episode, one signal");

    Request r2 = enqueue("r2"); // a new request: back to 10 s
    Request r3 = enqueue("r3");
    settle();
    expectPollAfter(Duration.ofSeconds(10));
    pool.addIdle(1);
    scheduler.notifyIdle(); // an idle pod: listed 200 ms later, handed to the oldest request
    clock.stepMillis(200);
    settle();
    assertEquals("pod-0", podOf(r1));
    expectPollAfter(Duration.ofSeconds(10)); // reset by the notification (and the hand-out)
    pool.addIdle(1);
    expectPollAfter(Duration.ofSeconds(20)); // finds pod-1 for r2
    assertEquals("pod-1", podOf(r2));
    expectPollAfter(Duration.ofSeconds(10)); // pods were idle after all: back to 10 s
    pool.addIdle(1);
    expectPollAfter(Duration.ofSeconds(20)); // finds pod-2 for r3: nothing waits
    assertEquals("pod-2", podOf(r3));
    assertEquals(Duration.ZERO, scheduler.stats().pollInterval());
    long listings = pool.listings.get();
    clock.step(Duration.ofHours(1));
    settle();
    assertEquals(listings, pool.listings.get(), "no poll while nothing waits");
    enqueue("r4");
    settle();
    assertEquals(2, scheduler.stats().scaleUps(), "a new episode, a new signal");
  }

  @Test
  void aBurstIsOneRound_eachPodGoesToOneRequest_inTheOrderFirstSeen_andTheBufferIsBounded() {
    pool.addIdle(3);
    List<Request> burst = new ArrayList<>();
    for (int i = 0; i < 1024; i++) {
      burst.add(enqueue("r" + i));
    }
    assertFalse(scheduler.enqueue(Request.of("one too many")), "1024 requests outstanding");
    assertTrue(scheduler.runPending());
    assertFalse(scheduler.runPending(), "1024 wake-ups, one round");
    assertEquals(1, pool.listings.get());
    assertEquals(4, claims.size(), "three claims and the scale-up signal");
    settle();

    clock.stepMillis(100);
    enqueue("r1024"); // three requests ended: room again. The cache still shows the pods Idle
    settle();
    assertEquals(2, pool.listings.get());
    assertEquals(List.of("pod-0", "pod-1", "pod-2"),
        burst.subList(0, 3).stream().map(PoolSchedulerTest::podOf).toList());
    assertEquals(Map.of("pod-0", 1, "pod-1", 1, "pod-2", 1), pool.claims);
    assertEquals(0, pool.doubleHandOuts.get(), "the reservations kept them out");
    burst.get(3).pod().cancel(false); // withdrawn: its slot is free
    assertEquals(1021, scheduler.stats().outstanding());
  }

  @Test
  void readyPodsGoOutInTheOrderFirstSeenIdle_howeverOftenTheyAreListed() {
    pool.addIdle(1);
    enqueue("r0"); // gets pod-0
    settle();
    pool.addIdle(1);
    clock.step(Duration.ofSeconds(3)); // the reservation is gone, the cache is current
    scheduler.notifyIdle();
    clock.stepMillis(200);
    settle(); // lists [pod-1]: queued, nothing waits
    pool.recycle("pod-0");
    scheduler.notifyIdle();
    clock.stepMillis(200);
    settle(); // lists [pod-0, pod-1]: pod-1 keeps its place at the head
    Request r1 = enqueue("r1");
    settle();
    assertEquals("pod-1", podOf(r1));
  }

  @Test
  void aClaimedPodStaysReservedForTheTtl_evenIfTheCacheLagsLonger() {
    FakePool lagging = new FakePool(clock, Duration.ofSeconds(3), Duration.ZERO, 0);
    scheduler = new PoolScheduler("test", lagging, Settings.DEFAULTS, clock, claims::add);
    lagging.addIdle(1);
    Request r1 = enqueue("r1");
    settle();
    assertEquals("pod-0", podOf(r1));

    enqueue("r2"); // each enqueue lists the pods: the cache shows pod-0 Idle for 3 s
    settle();
    clock.step(Duration.ofSeconds(2).minusNanos(1));
    enqueue("r3");
    settle();
    assertEquals(3, lagging.listings.get());
    assertEquals(1, lagging.claimWrites.get(), "pod-0 is reserved");

    clock.step(Duration.ofNanos(1));
    enqueue("r4");
    settle();
    assertEquals(1, lagging.doubleHandOuts.get(), "a TTL shorter than the cache lag lets it out");
  }

  @Test
  void aConflict_putsTheRequestBackAtTheHead_andThePodIsLookedAtAgainAfterTheTtl() {
    pool.addIdle(1);
    pool.conflictRate = 1;
    Request r1 = enqueue("r1");
    Request r2 = enqueue("r2");
    settle();
    assertEquals(1, scheduler.stats().conflicts());
    assertFalse(r1.pod().isDone());
    pool.conflictRate = 0;

    clock.step(Duration.ofSeconds(2).minusNanos(1));
    settle();
    assertFalse(r1.pod().isDone(), "pod-0 is still reserved");
    clock.step(Duration.ofNanos(1));
    settle();
    assertEquals("pod-0", podOf(r1), "r1 kept its place ahead of r2");
    assertFalse(r2.pod().isDone());
  }

  @Test
  void atMostMaxConcurrentClaimsRunAtOnce() {
    Settings d = Settings.DEFAULTS;
    scheduler = scheduler(new Settings(d.reservationTtl(), d.idleNotifyDelay(), d.pollBase(),
        d.pollMax(), 2, d.requestBuffer()));
    pool.addIdle(5);
    for (int i = 0; i < 5; i++) {
      enqueue("r" + i);
    }
    for (int claimed = 0; claimed < 5; claimed++) {
      while (scheduler.runPending()) { }
      assertEquals(Math.min(2, 5 - claimed), claims.size());
      assertEquals(claims.size(), scheduler.stats().inFlight());
      claims.poll().run(); // one finishes: the next starts
    }
    assertEquals(5, scheduler.stats().claimed());
  }

  @Test
  void aStormOfIdleNotifications_listsOncePerDelay_andStillCatchesTheLastPod() {
    pool.addIdle(2);
    Request r1 = enqueue("r1");
    Request r2 = enqueue("r2");
    settle();
    clock.step(Duration.ofSeconds(3)); // the reservations are gone, the sandboxes end
    Request r3 = enqueue("r3");
    Request r4 = enqueue("r4");
    settle();
    long listings = pool.listings.get();

    pool.recycle(podOf(r1)); // in the cache 150 ms from now
    for (int ms = 0; ms < 100; ms++) { // a notification every millisecond
      scheduler.notifyIdle();
      clock.stepMillis(1);
      settle();
    }
    pool.recycle(podOf(r2)); // in the cache at 250 ms
    scheduler.notifyIdle();
    clock.stepMillis(100);
    settle();
    assertEquals(listings + 1, pool.listings.get(), "one listing, 200 ms after the first");
    assertEquals("pod-0", podOf(r3));
    clock.stepMillis(100);
    settle();
    assertEquals(listings + 2, pool.listings.get(), "and one 200 ms after the last");
    assertEquals("pod-1", podOf(r4));
  }

  @Test
  void shutdown_failsWhatWaits_andLaterEnqueuesAreRefused() throws Exception {
    Request waiting = enqueue("waiting");
    settle();
    assertTrue(scheduler.shutdown(Duration.ofSeconds(1)));
    CompletionException e = assertThrows(CompletionException.class, () -> waiting.pod().join());
    assertTrue(e.getCause() instanceof IllegalStateException, e.toString());
    assertFalse(scheduler.enqueue(Request.of("late")));
    assertEquals(0, scheduler.stats().outstanding());
  }
}
