package dev.workqueue;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkQueueTest {
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  private static <T> T take(WorkQueue<T> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow(() -> new AssertionError("queue was empty"));
  }

  @Test
  void get_returnsItemsInFirstDirtyOrder() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    q.add("b");
    q.add("c");
    assertEquals(List.of("a", "b", "c"), List.of(take(q), take(q), take(q)));
  }

  @Test
  void add_ofQueuedItem_isDeduplicated() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    q.add("b");
    q.add("a");
    assertEquals(2, q.size());
    assertEquals("a", take(q));
    assertEquals("b", take(q));
    assertEquals(Optional.empty(), q.poll(Duration.ZERO));
  }

  @Test
  void reAddDuringProcessing_comesBackOnceAtTheTailAfterDone() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    q.add("b");
    assertEquals("a", take(q));
    q.add("a");
    q.add("a");
    q.add("a");
    assertEquals(1, q.size(), "a is not queued while processing");
    assertEquals("b", take(q));
    assertEquals(Optional.empty(), q.poll(Duration.ZERO), "a is never handed out twice at once");
    q.add("c");
    q.done("a");
    assertEquals(List.of("c", "a"), List.of(take(q), take(q)), "a goes to the tail at done");
    assertEquals(Optional.empty(), q.poll(Duration.ZERO), "exactly one more round");
  }

  @Test
  void add_afterShutDown_isNeverReturned() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.shutDown();
    q.add("late");
    assertEquals(0, q.size());
    assertEquals(Optional.empty(), q.get());
  }

  @Test
  void get_afterShutDown_drainsQueuedItemsThenReportsShutdownEveryTime() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    q.add("b");
    q.shutDown();
    assertTrue(q.isShuttingDown());
    assertEquals(Optional.of("a"), q.get());
    assertEquals(Optional.of("b"), q.get());
    for (int i = 0; i < 3; i++) {
      assertEquals(Optional.empty(), q.get());
      assertEquals(Optional.empty(), q.poll(Duration.ofHours(1)));
    }
  }

  @Test
  void done_afterShutDown_ofReAddedItem_isStillHandedOut() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    assertEquals("a", take(q));
    q.add("a");
    q.shutDown();
    q.done("a");
    assertEquals(Optional.of("a"), q.get());
    q.done("a");
    assertEquals(Optional.empty(), q.get());
  }

  @Test
  void get_blocked_isWokenByAdd() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    Future<Optional<String>> got = threads.submit(q::get);
    awaitWaiting(1);
    q.add("a");
    assertEquals(Optional.of("a"), got.get(10, SECONDS));
  }

  @Test
  void get_blocked_isWokenByShutDown() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    List<Future<Optional<String>>> got = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      got.add(threads.submit(q::get));
    }
    awaitWaiting(3);
    q.shutDown();
    for (Future<Optional<String>> f : got) {
      assertEquals(Optional.empty(), f.get(10, SECONDS));
    }
  }

  @Test
  void get_respondsToInterrupt() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        q.get();
      } catch (Throwable e) {
        thrown.set(e);
      }
    });
    t.start();
    await().atMost(10, SECONDS).until(() -> t.getState() == Thread.State.WAITING);
    t.interrupt();
    t.join(10_000);
    assertTrue(thrown.get() instanceof InterruptedException, "got " + thrown.get());
    q.add("a");
    assertEquals("a", take(q), "nothing was taken by the interrupted get");
  }

  @Test
  void poll_timesOutOnTheQueueClock() throws Exception {
    FakeClock clock = new FakeClock();
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).build();
    Future<Optional<String>> polled = threads.submit(() -> q.poll(Duration.ofSeconds(5)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    clock.step(Duration.ofSeconds(4));
    assertFalse(polled.isDone(), "not yet: 4 s of 5");
    clock.step(Duration.ofSeconds(1));
    assertEquals(Optional.empty(), polled.get(10, SECONDS));
    assertFalse(clock.hasWaiters(), "the timed wait left no wake-up behind");
  }

  @Test
  void poll_returnsItemAddedWhileWaiting() throws Exception {
    FakeClock clock = new FakeClock();
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).build();
    Future<Optional<String>> polled = threads.submit(() -> q.poll(Duration.ofSeconds(5)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    q.add("a");
    assertEquals(Optional.of("a"), polled.get(10, SECONDS));
  }

  @Test
  void unpairedDone_pushesNoDuplicateAndNeverDrivesDepthNegative() throws Exception {
    var metrics = new dev.workqueue.metrics.RecordingMetricsProvider();
    WorkQueue<String> q = WorkQueue.<String>builder()
        .name("q").metricsProvider(metrics).clock(new FakeClock()).build();
    q.done("never-seen");
    assertEquals(0, q.size());
    assertEquals(0.0, metrics.value("q", "workqueue_depth"));

    q.add("a");
    q.done("a"); // queued, not processing: ignored
    assertEquals(1, q.size());
    assertEquals("a", take(q));
    q.done("a");
    q.done("a"); // second done: ignored
    assertEquals(0, q.size());
    assertEquals(Optional.empty(), q.poll(Duration.ZERO));
    assertEquals(0.0, metrics.value("q", "workqueue_depth"));
    assertEquals(1, metrics.observations("q", "workqueue_work_duration_seconds").size());
  }

  @Test
  void shutDownWithDrain_waitsForQueuedAndProcessingItems() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    q.add("b");
    String a = take(q);
    Future<?> drain = threads.submit(() -> {
      q.shutDownWithDrain();
      return null;
    });
    await().atMost(10, SECONDS).until(q::isShuttingDown);
    q.done(a);
    assertFalse(isDoneSoon(drain), "b is still queued");
    String b = q.get().orElseThrow();
    assertFalse(isDoneSoon(drain), "b is processing");
    q.done(b);
    drain.get(10, SECONDS);
  }

  @Test
  void shutDownWithDrain_isEndedByShutDown() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.add("a");
    take(q); // processing forever
    List<Future<Boolean>> drains = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      drains.add(threads.submit(() -> q.shutDownWithDrain(Duration.ofHours(1))));
    }
    Future<?> untimed = threads.submit(() -> {
      q.shutDownWithDrain();
      return null;
    });
    awaitWaiting(3);
    q.shutDown();
    for (Future<Boolean> d : drains) {
      assertFalse(d.get(10, SECONDS), "forced, not drained");
    }
    untimed.get(10, SECONDS);
  }

  @Test
  void shutDownWithDrain_timedForm_reportsTimeout() throws Exception {
    FakeClock clock = new FakeClock();
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).build();
    q.add("a");
    take(q);
    Future<Boolean> drain = threads.submit(() -> q.shutDownWithDrain(Duration.ofSeconds(3)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    clock.step(Duration.ofSeconds(3));
    assertFalse(drain.get(10, SECONDS));
  }

  @Test
  void shutDownWithDrain_timedForm_reportsSuccess() throws Exception {
    FakeClock clock = new FakeClock();
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).build();
    q.add("a");
    take(q);
    Future<Boolean> drain = threads.submit(() -> q.shutDownWithDrain(Duration.ofSeconds(3)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    q.done("a");
    assertTrue(drain.get(10, SECONDS));
    assertTrue(q.shutDownWithDrain(Duration.ZERO), "an empty queue is drained at once");
  }

  @Test
  void shutDown_isIdempotent() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    q.shutDown();
    q.shutDown();
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
    assertTrue(q.isShuttingDown());
  }

  @Test
  void poppedItem_isGarbageCollectableAfterDone() throws Exception {
    WorkQueue<Object> q = WorkQueue.create();
    Object item = new Object();
    WeakReference<Object> ref = new WeakReference<>(item);
    q.add(item);
    q.add("other");
    q.done(take(q));
    item = null;
    for (int i = 0; i < 50 && ref.get() != null; i++) {
      System.gc();
      Thread.onSpinWait();
    }
    assertNull(ref.get(), "the queue still references a done item");
    assertEquals("other", take(q));
  }

  @Test
  void nullArguments_areRejectedNamingTheArgument() {
    WorkQueue<String> q = WorkQueue.create();
    assertEquals("item must not be null", assertThrows(NullPointerException.class, () -> q.add(null)).getMessage());
    assertEquals("item must not be null", assertThrows(NullPointerException.class, () -> q.done(null)).getMessage());
    assertEquals("timeout must not be null", assertThrows(NullPointerException.class, () -> q.poll(null)).getMessage());
    assertEquals("timeout must not be null",
        assertThrows(NullPointerException.class, () -> q.shutDownWithDrain(null)).getMessage());
    q.add("still-works");
    assertEquals(1, q.size());
  }

  @Test
  void builder_rejectsBadArgumentsAtOnce() {
    WorkQueueBuilder<String> b = WorkQueue.builder();
    assertEquals("name must not be empty", assertThrows(IllegalArgumentException.class, () -> b.name("")).getMessage());
    assertThrows(IllegalArgumentException.class, () -> b.metricsUpdatePeriod(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> b.metricsUpdatePeriod(Duration.ofSeconds(-1)));
    new com.google.common.testing.NullPointerTester().testAllPublicInstanceMethods(b);
  }

  private static boolean isDoneSoon(Future<?> f) {
    try {
      f.get(50, java.util.concurrent.TimeUnit.MILLISECONDS);
      return true;
    } catch (java.util.concurrent.TimeoutException e) {
      return false;
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Waits until {@code n} threads are parked inside a queue method. */
  static void awaitWaiting(int n) {
    await().atMost(10, SECONDS).until(() -> Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getState() == Thread.State.WAITING
            || t.getState() == Thread.State.TIMED_WAITING)
        .filter(WorkQueueTest::isInQueueWait)
        .count() >= n);
  }

  private static boolean isInQueueWait(Thread t) {
    for (StackTraceElement e : t.getStackTrace()) {
      if (e.getClassName().startsWith("dev.workqueue.Default")) {
        return true;
      }
    }
    return false;
  }
}
