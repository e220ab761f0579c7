package dev.workqueue;

import static dev.workqueue.metrics.MetricsProvider.ADDS;
import static dev.workqueue.metrics.MetricsProvider.DEPTH;
import static dev.workqueue.metrics.MetricsProvider.RETRIES;
import static java.time.Duration.ofMillis;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.RecordingMetricsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.Test;

class DelayingQueueTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();

  private DelayingQueue<String> queue() {
    return WorkQueue.<String>builder().clock(clock).name("d").metricsProvider(metrics)
        .buildDelaying();
  }

  private static <T> List<T> drainNow(WorkQueue<T> q) throws InterruptedException {
    List<T> out = new ArrayList<>();
    for (Optional<T> next = q.poll(Duration.ZERO); next.isPresent(); next = q.poll(Duration.ZERO)) {
      out.add(next.get());
      q.done(next.get());
    }
    return out;
  }

  @Test
  void addAfter50ms_invisibleAt0_presentAfter60ms_neverAgain() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("foo", ofMillis(50));
    assertEquals(0, q.size());
    assertEquals(1, q.waitingCount());
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(60);
    assertEquals(1, q.size());
    assertEquals(0, q.waitingCount());
    assertEquals(List.of("foo"), drainNow(q));
    clock.step(Duration.ofHours(1));
    assertEquals(List.of(), drainNow(q), "nothing reappears later");
    assertFalse(clock.hasWaiters(), "nothing left scheduled");
  }

  @Test
  void addAfter50ThenLater70_firesOnceAt50() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("foo", ofMillis(50));
    q.addAfter("foo", ofMillis(70));
    assertEquals(1, q.waitingCount());
    clock.stepMillis(49);
    assertEquals(0, q.size());
    clock.stepMillis(1);
    assertEquals(List.of("foo"), drainNow(q));
    clock.stepMillis(100);
    assertEquals(List.of(), drainNow(q));
  }

  @Test
  void addAfter50ThenEarlier30_firesAt30() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("foo", ofMillis(50));
    q.addAfter("foo", ofMillis(30));
    clock.stepMillis(29);
    assertEquals(0, q.size());
    clock.stepMillis(1);
    assertEquals(List.of("foo"), drainNow(q));
    clock.stepMillis(100);
    assertEquals(List.of(), drainNow(q));
  }

  @Test
  void dueItems_areAddedInReadyTimeOrder_inOneStep() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("1000", Duration.ofSeconds(1));
    q.addAfter("500", ofMillis(500));
    q.addAfter("250", ofMillis(250));
    clock.step(Duration.ofSeconds(1));
    assertEquals(List.of("250", "500", "1000"), drainNow(q));
  }

  @Test
  void laterAddAfter_whileOthersWait_firesAtItsOwnTime() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(100));
    clock.stepMillis(10);
    q.addAfter("b", ofMillis(20)); // due at 30, before a
    clock.stepMillis(20);
    assertEquals(List.of("b"), drainNow(q));
    clock.stepMillis(69);
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(1);
    assertEquals(List.of("a"), drainNow(q));
  }

  @Test
  void nonPositiveDelay_addsNow_andCountsARetry() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("zero", Duration.ZERO);
    q.addAfter("negative", Duration.ofSeconds(-5));
    assertEquals(2, q.size());
    assertEquals(2, metrics.count("d", RETRIES));
    assertEquals(List.of("zero", "negative"), drainNow(q));
  }

  @Test
  void metrics_retriesPerCall_depthOnlyForDirtyItems() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(10));
    q.addAfter("a", ofMillis(20));
    assertEquals(2, metrics.count("d", RETRIES), "one retry per addAfter call");
    assertEquals(0, metrics.count("d", ADDS), "waiting is not dirty");
    assertEquals(0.0, metrics.value("d", DEPTH));
    clock.stepMillis(10);
    assertEquals(1, metrics.count("d", ADDS));
    assertEquals(1.0, metrics.value("d", DEPTH));
    q.shutDown();
    q.addAfter("b", ofMillis(10));
    assertEquals(2, metrics.count("d", RETRIES), "not counted after shutdown");
  }

  @Test
  void dueItemAlreadyDirty_isNotQueuedTwice() throws Exception {
    DelayingQueue<String> q = queue();
    q.add("a");
    q.addAfter("a", ofMillis(10));
    clock.stepMillis(10);
    assertEquals(List.of("a"), drainNow(q));
  }

  @Test
  void shutDown_discardsWaitingItems_andCancelsTheWakeUp() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(10));
    q.addAfter("b", ofMillis(20));
    assertTrue(clock.hasWaiters());
    q.shutDown();
    assertEquals(0, q.waitingCount());
    assertFalse(clock.hasWaiters());
    clock.stepMillis(100);
    assertEquals(Optional.empty(), q.get());
  }

  @Test
  void shutDownWithDrain_discardsWaitingItems_andDrainsTheRest() throws Exception {
    DelayingQueue<String> q = queue();
    q.add("now");
    q.addAfter("later", ofMillis(10));
    String now = q.poll(Duration.ZERO).orElseThrow();
    q.done(now);
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
    assertEquals(0, q.waitingCount());
    assertFalse(clock.hasWaiters());
  }

  @Test
  void cancel_removesAWaitingItem_only() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(10));
    q.addAfter("b", ofMillis(20));
    q.add("c");
    assertTrue(q.cancel("a"));
    assertFalse(q.cancel("a"), "no longer waiting");
    assertFalse(q.cancel("c"), "queued, not waiting: untouched");
    assertEquals(1, q.size());
    clock.stepMillis(20);
    assertEquals(List.of("c", "b"), drainNow(q));
    int before = clock.pendingWakeups(); // the metrics refresh of this named queue
    q.addAfter("d", ofMillis(10));
    assertEquals(before + 1, clock.pendingWakeups());
    assertTrue(q.cancel("d"));
    assertEquals(before, clock.pendingWakeups(), "cancelling the last waiting item cancels the wake-up");
  }

  @Test
  void addAfter_neverPostpones_butReschedulePostpones() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(10));
    q.addAfter("a", ofMillis(50));
    clock.stepMillis(10);
    assertEquals(List.of("a"), drainNow(q), "addAfter keeps the earlier time");

    q.addAfter("b", ofMillis(10));
    q.reschedule("b", ofMillis(50));
    clock.stepMillis(10);
    assertEquals(List.of(), drainNow(q), "reschedule postponed b");
    clock.stepMillis(40);
    assertEquals(List.of("b"), drainNow(q));

    q.addAfter("c", ofMillis(50));
    q.reschedule("c", Duration.ZERO);
    assertEquals(0, q.waitingCount());
    assertEquals(List.of("c"), drainNow(q), "reschedule to zero adds now");
    clock.stepMillis(100);
    assertEquals(List.of(), drainNow(q), "and not again");
  }

  @Test
  void add_ofWaitingItem_byDefault_processesItNowAndAgainLater() throws Exception {
    DelayingQueue<String> q = queue();
    q.addAfter("a", ofMillis(10));
    q.add("a");
    assertEquals(List.of("a"), drainNow(q));
    clock.stepMillis(10);
    assertEquals(List.of("a"), drainNow(q), "client-go behaviour: the delayed add still fires");
  }

  @Test
  void add_ofWaitingItem_withAddSupersedesDelayed_processesItOnce() throws Exception {
    DelayingQueue<String> q = WorkQueue.<String>builder().clock(clock)
        .addSupersedesDelayed(true).buildDelaying();
    q.addAfter("a", ofMillis(10));
    q.add("a");
    assertEquals(0, q.waitingCount());
    assertEquals(List.of("a"), drainNow(q));
    clock.stepMillis(10);
    assertEquals(List.of(), drainNow(q));
    assertFalse(clock.hasWaiters());
  }

  @Test
  void oneMillionRandomDelays_everyItemDeliveredExactlyOnce() throws Exception {
    DelayingQueue<Integer> q = WorkQueue.<Integer>builder().clock(clock).buildDelaying();
    int n = 1_000_000;
    Random random = new Random(7);
    for (int i = 0; i < n; i++) {
      q.addAfter(i, ofMillis(1 + random.nextInt(60_000)));
    }
    assertEquals(n, q.waitingCount());
    boolean[] seen = new boolean[n];
    int delivered = 0;
    for (int step = 0; step < 61; step++) {
      clock.step(Duration.ofSeconds(1));
      for (Optional<Integer> next = q.poll(Duration.ZERO); next.isPresent();
          next = q.poll(Duration.ZERO)) {
        int i = next.get();
        assertFalse(seen[i], "delivered twice: " + i);
        seen[i] = true;
        delivered++;
        q.done(i);
      }
    }
    assertEquals(n, delivered);
    assertEquals(0, q.waitingCount());
  }

  @Test
  void consumer_promotesDueItems_evenIfTheWakeUpIsLate() throws Exception {
    Clock neverWakes = new Clock() {
      @Override public long nanoTime() {
        return clock.nanoTime();
      }

      @Override public long awaitUntil(Lock lock, Condition c, long deadline)
          throws InterruptedException {
        return clock.awaitUntil(lock, c, deadline);
      }

      @Override public Cancellable schedule(long deadline, Runnable task) {
        return () -> true; // a timer that never fires
      }
    };
    DelayingQueue<String> q = WorkQueue.<String>builder().clock(neverWakes).buildDelaying();
    q.addAfter("b", ofMillis(20));
    q.addAfter("a", ofMillis(10));
    clock.stepMillis(20);
    assertEquals(List.of("a", "b"), drainNow(q));
  }

  @Test
  void realClock_deliversOnTime_andShutDownLeavesNoThread() throws Exception {
    DelayingQueue<String> q = DelayingQueue.create();
    q.addAfter("soon", ofMillis(20));
    q.addAfter("never", Duration.ofHours(1));
    assertEquals(Optional.of("soon"), q.poll(Duration.ofSeconds(10)));
    q.shutDown();
    await().atMost(10, SECONDS).until(() -> ThreadOwnershipTest.toolkitThreads().isEmpty());
  }

  @Test
  void userScheduler_runsTheWakeUps() throws Exception {
    ScheduledExecutorService mine = Executors.newSingleThreadScheduledExecutor(
        r -> new Thread(r, "my-scheduler"));
    try {
      DelayingQueue<String> q = WorkQueue.<String>builder().scheduler(mine).buildDelaying();
      q.addAfter("x", ofMillis(5));
      assertEquals(Optional.of("x"), q.poll(Duration.ofSeconds(10)));
      q.shutDownWithDrain(Duration.ZERO);
    } finally {
      mine.shutdownNow();
    }
    assertThrows(IllegalStateException.class,
        () -> WorkQueue.<String>builder().clock(clock).scheduler(mine).buildDelaying());
  }

  @Test
  void idleDelayingQueues_ownNoThread() {
    var before = ThreadOwnershipTest.toolkitThreads();
    List<DelayingQueue<String>> queues = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      queues.add(DelayingQueue.create());
    }
    var after = ThreadOwnershipTest.toolkitThreads();
    after.removeAll(before);
    assertEquals(java.util.Set.of(), after);
    assertEquals(1000, queues.size());
  }

  @Test
  void nullArguments_areRejectedNamingTheArgument() {
    DelayingQueue<String> q = queue();
    assertEquals("item must not be null",
        assertThrows(NullPointerException.class, () -> q.addAfter(null, ofMillis(1))).getMessage());
    assertEquals("delay must not be null",
        assertThrows(NullPointerException.class, () -> q.addAfter("a", null)).getMessage());
    assertEquals("delay must not be null",
        assertThrows(NullPointerException.class, () -> q.reschedule("a", null)).getMessage());
    assertThrows(NullPointerException.class, () -> q.cancel(null));
    q.addAfter("ok", ofMillis(1));
    assertEquals(1, q.waitingCount(), "the queue keeps working");
  }
}
