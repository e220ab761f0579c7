package dev.workqueue;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

/**
 * What is specific to the priority queue: order by priority then readiness, how repeated adds
 * merge priorities and ready times, the limiter's delays with {@code AddOptions}, aging, and
 * the calls that report priorities. The behaviour every queue kind shares (one more round after
 * {@code done}, {@code done} out of turn, blocking and timed takes, interrupts, shutdown and
 * drain, {@code cancel}, delays) is in {@link QueueContractTest}, run against this queue as
 * {@link QueueKind#PRIORITY}.
 */
class PriorityWorkQueueTest {
  private static final Duration MINUTE = Duration.ofMinutes(1);

  private final FakeClock clock = new FakeClock();
  private final AtomicInteger limiterCalls = new AtomicInteger();
  private Duration limiterDelay = Duration.ofSeconds(10);

  /** A limiter that answers {@link #limiterDelay} and counts its calls. */
  private final RateLimiter<Object> limiter = new RateLimiter<>() {
    @Override
    public Duration when(Object item) {
      limiterCalls.incrementAndGet();
      return limiterDelay;
    }

    @Override
    public void forget(Object item) {}

    @Override
    public int numRequeues(Object item) {
      return 0;
    }
  };

  private WorkQueueBuilder<String> builder() {
    return WorkQueue.<String>builder().clock(clock);
  }

  private PriorityWorkQueue<String> queue() {
    return builder().buildPriority(limiter);
  }

  private static AddOptions at(int priority) {
    return AddOptions.ofPriority(priority);
  }

  /** Takes and finishes everything ready now, as "item@priority". */
  private static List<String> drainNow(PriorityWorkQueue<String> q) throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (var next = q.pollWithPriority(Duration.ZERO); next.isPresent();
        next = q.pollWithPriority(Duration.ZERO)) {
      out.add(next.get().item() + "@" + next.get().priority());
      q.done(next.get().item());
    }
    assertTrue(((DefaultPriorityWorkQueue<String>) q).checkInvariants());
    return out;
  }

  // ---- order ----

  record Added(String item, int priority, long readyAt, int seq) {}

  private static final Comparator<Added> SERVICE_ORDER = Comparator
      .comparingInt((Added a) -> -a.priority).thenComparingLong(Added::readyAt)
      .thenComparingInt(Added::seq);

  @Test
  void laterDelayedAddAtAHigherPriority_raisesTheWaitingItem_evenIfNothingLookedAtTheHeapSince()
      throws Exception {
    PriorityWorkQueue<String> q = WorkQueue.<String>builder().clock(clock)
        .buildPriority(dev.workqueue.ratelimit.RateLimiters.exponential(
            Duration.ofMillis(1), Duration.ofSeconds(1)));
    q.add("x", AddOptions.ofPriority(0).withAfter(Duration.ofSeconds(1)));
    q.add("x", AddOptions.ofPriority(10).withAfter(Duration.ofSeconds(5))); // merged, later
    clock.step(Duration.ofSeconds(1));
    assertEquals(Optional.of(new PriorityItem<>("x", 10)), q.pollWithPriority(Duration.ZERO),
        "the highest priority it was added with");
  }

  @Test
  void fivePriorities_thousandItemsEach_strictPriority_fifoWithin() throws Exception {
    PriorityWorkQueue<String> q = queue();
    Random random = new Random(1);
    List<Added> added = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      int priority = random.nextInt(5) * 10 - 20; // -20, -10, 0, 10, 20 in random order
      String item = "i" + i;
      q.add(item, at(priority));
      added.add(new Added(item, priority, 0, i));
    }
    assertEquals(5000, q.size());
    List<String> expected = added.stream().sorted(SERVICE_ORDER)
        .map(a -> a.item + "@" + a.priority).toList();
    assertEquals(expected, drainNow(q));
  }

  @Test
  void fivePriorities_thousandItemsEach_withDelays_orderedByPriorityThenReadyTime()
      throws Exception {
    PriorityWorkQueue<String> q = queue();
    Random random = new Random(2);
    List<Added> added = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      int priority = random.nextInt(5);
      String item = "i" + i;
      long delayMillis = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(1000);
      q.add(item, at(priority).withAfter(Duration.ofMillis(delayMillis)));
      added.add(new Added(item, priority, delayMillis, i));
    }
    assertTrue(q.waitingCount() > 3000, "most items wait: " + q.waitingCount());
    clock.stepMillis(1000); // every delay ends: promoted in ready-time order
    assertEquals(0, q.waitingCount());
    List<String> expected = added.stream().sorted(SERVICE_ORDER)
        .map(a -> a.item + "@" + a.priority).toList();
    assertEquals(expected, drainNow(q));
  }

  /** A clock whose wake-ups never run: a timer thread that is late, as late as can be. */
  private static final class LateWakeupClock implements Clock {
    final FakeClock time = new FakeClock();

    @Override
    public long nanoTime() {
      return time.nanoTime();
    }

    @Override
    public long awaitUntil(Lock lock, Condition condition, long deadline)
        throws InterruptedException {
      return time.awaitUntil(lock, condition, deadline);
    }

    @Override
    public Cancellable schedule(long deadline, Runnable task) {
      return () -> true;
    }
  }

  @Test
  void itemsBecomingReady_lineUpByReadyTime_evenWhenTheWakeupIsLate() throws Exception {
    LateWakeupClock late = new LateWakeupClock();
    PriorityWorkQueue<String> q = WorkQueue.<String>builder().clock(late).buildPriority(limiter);
    q.addAfter("due-at-10", Duration.ofSeconds(10));
    q.addAfter("due-at-5", Duration.ofSeconds(5));
    late.time.step(Duration.ofSeconds(20)); // no wake-up ran: both still in the heap
    q.add("added-at-20");
    q.add("other-line", at(1));
    assertEquals(List.of("other-line@1", "due-at-5@0", "due-at-10@0", "added-at-20@0"),
        drainNow(q));
  }

  @Test
  void highPriorityReadyLater_isServedBefore_lowPriorityReadyEarlier() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("low", at(0));
    q.add("high", at(10).withAfter(Duration.ofSeconds(1)));
    assertEquals(1, q.size(), "only low is ready at first");
    assertEquals(1, q.waitingCount());
    clock.stepMillis(2000);
    assertEquals(List.of("high@10", "low@0"), drainNow(q));
  }

  // ---- de-duplication ----

  @Test
  void repeatedAdds_handOutOnce() throws Exception {
    PriorityWorkQueue<String> q = queue();
    for (int i = 0; i < 10; i++) {
      q.add("x");
      q.add("x", at(0));
    }
    assertEquals(1, q.size());
    assertEquals(List.of("x@0"), drainNow(q));
    assertEquals(List.of(), drainNow(q));
  }

  @Test
  void lowerPriorityReAdd_keepsHighestPriority_andPlace() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("a", at(5));
    q.add("x", at(5));
    q.add("b", at(5));
    q.add("x", at(1)); // lower: nothing changes
    q.add("x"); // lower (0): nothing changes
    assertEquals(List.of("a@5", "x@5", "b@5"), drainNow(q));
  }

  @Test
  void priorityIncrease_movesToEndOfNewLevel() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("a", at(5));
    q.add("x", at(1));
    q.add("b", at(5));
    q.add("y", at(1));
    q.add("x", at(5)); // rises: behind a and b, not ahead of them
    assertEquals(List.of("a@5", "b@5", "x@5", "y@1"), drainNow(q));
  }

  @Test
  void waitingItem_keepsEarliestReadyTime_andHighestPriority() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("x", at(1).withAfter(Duration.ofSeconds(10)));
    q.add("x", at(3).withAfter(Duration.ofSeconds(20))); // later: time kept, priority rises
    q.add("y", at(0).withAfter(Duration.ofSeconds(20)));
    q.add("y", at(0).withAfter(Duration.ofSeconds(5))); // earlier: moves forward
    assertEquals(2, q.waitingCount());
    clock.stepMillis(4999);
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(1);
    assertEquals(List.of("y@0"), drainNow(q));
    clock.stepMillis(5000);
    assertEquals(List.of("x@3"), drainNow(q));
    clock.step(MINUTE);
    assertEquals(List.of(), drainNow(q), "nothing comes back");
    assertFalse(clock.hasWaiters(), "no wake-up left armed");
  }

  @Test
  void itemWaitingAMinute_reAddedWithoutDelay_isServedAtOnce_once() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.addAfter("x", MINUTE);
    assertEquals(List.of(), drainNow(q));
    q.add("x");
    assertEquals(0, q.waitingCount(), "no longer waiting");
    assertEquals(List.of("x@0"), drainNow(q));
    clock.step(MINUTE);
    assertEquals(List.of(), drainNow(q), "not handed out again when the minute ends");
  }

  @Test
  void readyItem_neverGoesBackToWaiting() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("x");
    q.addAfter("x", MINUTE);
    q.reschedule("x", MINUTE);
    q.add("x", at(0).withAfter(MINUTE));
    assertEquals(0, q.waitingCount());
    assertFalse(q.cancel("x"), "cancel leaves a ready item alone");
    assertEquals(List.of("x@0"), drainNow(q));
  }

  @Test
  void processingItem_reAdded_isHandedOutAfterDone_withItsHighestPriority() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("x", at(2));
    PriorityItem<String> first = q.pollWithPriority(Duration.ZERO).orElseThrow();
    assertEquals(new PriorityItem<>("x", 2), first);
    q.add("x", at(-1));
    q.add("x", at(7));
    q.add("x", at(5));
    q.add("y", at(0));
    assertEquals(List.of("y@0"), drainNow(q), "x is not handed out while processing");
    q.done("x");
    assertEquals(List.of("x@7"), drainNow(q));
    assertEquals(List.of(), drainNow(q));
  }

  // ---- rate limiting ----

  @Test
  void rateLimited_usesTheLimiter_andTheSmallerDelayWithAfter() throws Exception {
    PriorityWorkQueue<String> q = queue();
    limiterDelay = Duration.ofSeconds(10);
    q.addRateLimited("plain");
    q.add("limited", at(3).withRateLimited(true));
    q.add("after-shorter", at(0).withRateLimited(true).withAfter(Duration.ofSeconds(2)));
    q.add("after-longer", at(0).withRateLimited(true).withAfter(Duration.ofSeconds(20)));
    assertEquals(4, limiterCalls.get());
    clock.stepMillis(2000);
    assertEquals(List.of("after-shorter@0"), drainNow(q));
    clock.stepMillis(8000);
    assertEquals(List.of("limited@3", "plain@0", "after-longer@0"), drainNow(q));
  }

  @Test
  void afterShutdown_addsAreIgnored_andTheLimiterIsNotAsked() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.shutDown();
    q.add("a");
    q.add("b", at(5).withRateLimited(true));
    q.addRateLimited("c");
    q.addAfter("d", Duration.ZERO);
    assertEquals(0, limiterCalls.get());
    assertEquals(Optional.empty(), q.get());
  }

  // ---- starvation protection ----

  /**
   * A consumer takes one item per second while two high-priority items arrive per second: the
   * high line never empties. Returns the second at which "starving" (low priority) was served,
   * or -1 if not within {@code seconds}.
   */
  private long servedAtUnderSteadyLoad(PriorityWorkQueue<String> q, int seconds)
      throws Exception {
    q.add("starving", at(-100));
    int next = 0;
    for (int s = 0; s < seconds; s++) {
      q.add("high-" + next++, at(0));
      q.add("high-" + next++, at(0));
      String item = q.poll(Duration.ZERO).orElseThrow();
      q.done(item);
      if (item.equals("starving")) {
        return s;
      }
      clock.stepMillis(1000);
    }
    return -1;
  }

  @Test
  void aging_servesAStarvingItemWithinTheThreshold_underSteadyHigherPriorityLoad()
      throws Exception {
    PriorityWorkQueue<String> q = builder().agingThreshold(MINUTE).buildPriority(limiter);
    assertEquals(60, servedAtUnderSteadyLoad(q, 600), "served at the first take after 1 min");
  }

  @Test
  void withoutAging_theSameLoadStarvesTheItem() throws Exception {
    PriorityWorkQueue<String> q = builder().disableAging().buildPriority(limiter);
    assertEquals(-1, servedAtUnderSteadyLoad(q, 600));
  }

  @Test
  void aging_isOnByDefault_atFiveMinutes() throws Exception {
    PriorityWorkQueue<String> q = queue();
    assertEquals(300, servedAtUnderSteadyLoad(q, 600));
  }

  @Test
  void aging_servesAgedItemsOldestFirst_thenStrictPriorityAgain() throws Exception {
    PriorityWorkQueue<String> q = builder().agingThreshold(MINUTE).buildPriority(limiter);
    q.add("old-low", at(-5));
    clock.stepMillis(1000);
    q.add("old-mid", at(-1));
    clock.step(MINUTE);
    q.add("fresh-high", at(9));
    q.add("fresh-low", at(-9));
    assertEquals(List.of("old-low@-5", "old-mid@-1", "fresh-high@9", "fresh-low@-9"),
        drainNow(q));
  }

  @Test
  void aging_countsFromWhenTheItemBecameReady_notFromItsAdd() throws Exception {
    PriorityWorkQueue<String> q = builder().agingThreshold(MINUTE).buildPriority(limiter);
    q.add("delayed-low", at(-1).withAfter(Duration.ofSeconds(30)));
    q.add("high", at(1));
    clock.step(Duration.ofSeconds(61)); // added 61 s ago, ready for only 31 s
    q.add("high-2", at(1));
    assertEquals(List.of("high@1", "high-2@1", "delayed-low@-1"), drainNow(q));
  }

  // ---- shutdown of the priority takes ----

  @Test
  void shutDown_wakesBlockedGetWithPriorityAndPollWithPriority() throws Exception {
    PriorityWorkQueue<String> q = queue();
    try (QueueThreads threads = new QueueThreads()) {
      var got = threads.parked("pq-test-getter", q::getWithPriority);
      var polled = threads.parked("pq-test-poller", () -> q.pollWithPriority(Duration.ofHours(1)));
      assertFalse(got.result().isDone() || polled.result().isDone());
      q.shutDown();
      assertEquals(Optional.empty(), got.result().get(10, SECONDS));
      assertEquals(Optional.empty(), polled.result().get(10, SECONDS));
      assertEquals(Optional.empty(), q.getWithPriority(), "and every later one at once");
    }
  }

  // ---- reschedule, clock wrap, many priorities ----

  @Test
  void reschedule_movesAWaitingItemEitherWay_keepingItsPriority() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("x", at(6).withAfter(Duration.ofSeconds(10)));
    q.reschedule("x", Duration.ofSeconds(30));
    clock.stepMillis(29_999);
    assertEquals(List.of(), drainNow(q), "postponed");
    clock.stepMillis(1);
    assertEquals(List.of("x@6"), drainNow(q));
    q.add("y", at(-3).withAfter(MINUTE));
    q.reschedule("y", Duration.ZERO);
    assertEquals(List.of("y@-3"), drainNow(q));
    q.reschedule("z", Duration.ofSeconds(1));
    clock.stepMillis(1000);
    assertEquals(List.of("z@0"), drainNow(q));
  }

  @Test
  void clockNearLongMaxValue_delaysStillWork() throws Exception {
    FakeClock late = new FakeClock(Long.MAX_VALUE - 500);
    PriorityWorkQueue<String> q = WorkQueue.<String>builder().clock(late)
        .agingThreshold(Duration.ofNanos(1000)).buildPriority(limiter);
    q.add("x", at(1).withAfter(Duration.ofNanos(1000))); // ready time wraps
    assertEquals(List.of(), drainNow(q));
    late.step(Duration.ofNanos(999));
    assertEquals(List.of(), drainNow(q));
    late.step(Duration.ofNanos(1));
    q.add("fresh", at(5));
    late.step(Duration.ofNanos(999));
    assertEquals(List.of("fresh@5", "x@1"), drainNow(q), "x aged only 999 ns: not yet");
    q.add("a", at(-1));
    late.step(Duration.ofNanos(1000));
    q.add("b", at(3));
    assertEquals(List.of("a@-1", "b@3"), drainNow(q), "a aged 1000 ns across the wrap");
  }

  @Test
  void manyDistinctPriorities_stayInOrder_andEmptyLevelsAreBounded() throws Exception {
    PriorityWorkQueue<String> q = queue();
    for (int round = 0; round < 3; round++) {
      for (int p = 0; p < 200; p++) {
        q.add("p" + p, at(p * 7919 % 200 - 100));
      }
      List<String> out = drainNow(q);
      assertEquals(200, out.size());
      for (int i = 1; i < out.size(); i++) {
        int prev = Integer.parseInt(out.get(i - 1).substring(out.get(i - 1).indexOf('@') + 1));
        int cur = Integer.parseInt(out.get(i).substring(out.get(i).indexOf('@') + 1));
        assertTrue(prev > cur, out.toString());
      }
    }
  }

  @Test
  void getReportsThePriority_plainGetTheItem() throws Exception {
    PriorityWorkQueue<String> q = queue();
    q.add("a", at(Integer.MIN_VALUE));
    q.add("b", at(Integer.MAX_VALUE));
    assertEquals(Optional.of(new PriorityItem<>("b", Integer.MAX_VALUE)), q.getWithPriority());
    assertEquals(Optional.of("a"), q.get());
    assertNull(q.pollWithPriority(Duration.ZERO).orElse(null));
  }

}
