package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller's scheduling options (back-off kept against event adds, a longest interval
 * between reconciles of a key) and its lifecycle frictions: a priority the queue cannot honour,
 * two running controllers with one name on one metrics provider, waiting for the end.
 */
class ControllerOptionsTest {
  private static final long MS = 1_000_000L;

  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final BlockingQueue<Call> calls = new LinkedBlockingQueue<>();
  private final Map<String, Function<String, Result>> behaviour = new ConcurrentHashMap<>();
  private Controller<String> controller;

  record Call(String key, long atNanos) {}

  private ControllerBuilder<String> builder() {
    return Controller.<String>builder("options").clock(clock).metricsProvider(metrics)
        .reconciler(key -> {
          calls.add(new Call(key, clock.nanoTime()));
          Function<String, Result> f = behaviour.get(key);
          return f == null ? Result.success() : f.apply(key);
        });
  }

  private Controller<String> start(ControllerBuilder<String> b) {
    controller = b.build();
    controller.start();
    return controller;
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ZERO);
    }
  }

  private Call nextCall() throws InterruptedException {
    Call c = calls.poll(10, SECONDS);
    assertNotNull(c, "the reconciler was not called");
    return c;
  }

  /** Waits until no key is queued or being reconciled, and {@code waiting} keys wait. */
  private void awaitSettled(int waiting) {
    await().atMost(10, SECONDS).until(() -> {
      ControllerStatus s = controller.status();
      return s.busyWorkers() == 0 && s.queued() == 0 && s.waiting() == waiting;
    });
  }

  // --- back-off kept against event adds (issue #17 item 5) ---

  /** A reconcile that writes status (an event: the key is added) and then fails. */
  private void failAfterWritingStatus(String key) {
    behaviour.put(key, k -> {
      controller.add(k); // the watch event of the status write
      throw new IllegalStateException("failed after writing status");
    });
  }

  @Test
  void byDefault_anEventDuringAFailingReconcile_skipsTheBackOff() throws Exception {
    failAfterWritingStatus("a");
    start(builder());
    controller.add("a");
    Call first = nextCall();
    Call second = nextCall();
    assertEquals(first.atNanos(), second.atNanos(), "client-go's rule: no back-off against"
        + " an add (this is the behaviour the option changes)");
  }

  @Test
  void deferEvents_anEventDuringAFailingReconcile_waitsOutTheBackOff() throws Exception {
    failAfterWritingStatus("a");
    start(builder().deferEventsDuringBackoff(true));
    controller.add("a");
    Call first = nextCall();
    awaitSettled(1);
    assertNull(calls.poll(), "the event did not cut the back-off short");
    clock.stepMillis(5); // the default limiter's first back-off
    Call second = nextCall();
    assertEquals(first.atNanos() + 5 * MS, second.atNanos());
    awaitSettled(1);
    assertNull(calls.poll(), "one reconcile for the retry and the event it covers");
  }

  @Test
  void deferEvents_anEventWhileBackingOff_waitsForTheRetry() throws Exception {
    behaviour.put("a", k -> {
      throw new IllegalStateException("down");
    });
    start(builder().deferEventsDuringBackoff(true));
    controller.add("a");
    Call first = nextCall();
    awaitSettled(1);
    controller.add("a"); // an event while the retry waits
    assertEquals(0, controller.status().queued(), "merged into the waiting retry");
    clock.stepMillis(5);
    assertEquals(first.atNanos() + 5 * MS, nextCall().atNanos());
  }

  @Test
  void deferEvents_anEventDuringASucceedingReconcile_reconcilesAgainAtOnce() throws Exception {
    AtomicBoolean once = new AtomicBoolean();
    behaviour.put("a", k -> {
      if (once.compareAndSet(false, true)) {
        controller.add(k); // an event during the first reconcile only
      }
      return Result.success();
    });
    start(builder().deferEventsDuringBackoff(true));
    controller.add("a");
    Call first = nextCall();
    assertEquals(first.atNanos(), nextCall().atNanos(), "no back-off to keep: as client-go");
  }

  @Test
  void deferEvents_afterARestart_theOldBackOffNoLongerHoldsEvents() throws Exception {
    behaviour.put("a", k -> {
      throw new IllegalStateException("down");
    });
    start(builder().deferEventsDuringBackoff(true));
    controller.add("a");
    nextCall();
    awaitSettled(1);
    assertTrue(controller.stop(Duration.ofSeconds(5)).completed()); // the waiting retry is gone
    behaviour.remove("a");
    controller.start();
    controller.add("a");
    nextCall(); // not held: nothing would ever deliver it
  }

  @Test
  void deferEvents_aKeyDroppedAtMaxRetries_isReconciledByItsNextEvent() throws Exception {
    behaviour.put("a", k -> {
      throw new IllegalStateException("down");
    });
    start(builder().deferEventsDuringBackoff(true).maxRetries(0, (k, n, e) -> {}));
    controller.add("a");
    nextCall();
    awaitSettled(0);
    controller.add("a");
    nextCall();
  }

  /**
   * A stop discards the waiting retries, so an add during the stop must not be held by one: it
   * is kept for the next start, as without the option (found in review: it was lost).
   */
  @Test
  void deferEvents_anAddDuringAStop_isKeptForTheNextStart() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    AtomicBoolean failOnce = new AtomicBoolean(true);
    behaviour.put("a", k -> {
      if (failOnce.getAndSet(false)) {
        throw new IllegalStateException("down");
      }
      return Result.success();
    });
    behaviour.put("b", k -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Result.success();
    });
    start(builder().workers(2).deferEventsDuringBackoff(true));
    controller.add("a");
    nextCall();
    awaitSettled(1); // a waits out its back-off
    controller.add("b");
    assertEquals("b", nextCall().key()); // b holds its worker, so the stop waits
    CompletableFuture<StopResult<String>> stopping = CompletableFuture.supplyAsync(() -> {
      try {
        return controller.stop(Duration.ofSeconds(30));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    DefaultController<String> c = (DefaultController<String>) controller;
    await().atMost(10, SECONDS).until(() -> c.queue().isShuttingDown());
    controller.add("a"); // an event during the stop: a's waiting retry is gone with the queue
    release.countDown();
    assertTrue(stopping.get(10, SECONDS).completed());
    controller.start();
    assertEquals("a", nextCall().key(), "kept for the next start");
  }

  /** An add held by a waiting retry when a draining stop begins is drained, not discarded. */
  @Test
  void deferEvents_anAddHeldByARetry_isDrainedByADrainingStop() throws Exception {
    AtomicBoolean failOnce = new AtomicBoolean(true);
    behaviour.put("a", k -> {
      if (failOnce.getAndSet(false)) {
        throw new IllegalStateException("down");
      }
      return Result.success();
    });
    start(builder().deferEventsDuringBackoff(true).drainOnStop(true));
    controller.add("a");
    nextCall();
    awaitSettled(1);
    controller.add("a"); // held: the retry covers it
    assertEquals(0, controller.status().queued());
    assertTrue(controller.stop(Duration.ofSeconds(10)).completed());
    assertEquals("a", nextCall().key(), "drained as the add would have been without the option");
  }

  // --- maxReconcileInterval (issue #17 item 5) ---

  @Test
  void maxReconcileInterval_reconcilesEachKeyAtLeastThatOften() throws Exception {
    start(builder().maxReconcileInterval(Duration.ofMinutes(1)));
    controller.add("a");
    long t0 = nextCall().atNanos();
    awaitSettled(1);
    clock.step(Duration.ofMinutes(1));
    assertEquals(t0 + Duration.ofMinutes(1).toNanos(), nextCall().atNanos());
    awaitSettled(1);
    clock.step(Duration.ofMinutes(1));
    assertEquals(t0 + Duration.ofMinutes(2).toNanos(), nextCall().atNanos());
  }

  @Test
  void maxReconcileInterval_alsoAfterTheKeyWasDroppedAtMaxRetries() throws Exception {
    behaviour.put("a", k -> {
      throw new IllegalStateException("down");
    });
    start(builder().maxRetries(0, (k, n, e) -> {})
        .maxReconcileInterval(Duration.ofMinutes(1)));
    controller.add("a");
    long t0 = nextCall().atNanos();
    awaitSettled(1);
    clock.step(Duration.ofMinutes(1));
    assertEquals(t0 + Duration.ofMinutes(1).toNanos(), nextCall().atNanos());
  }

  @Test
  void maxReconcileInterval_shortensALongerRequeueAfter() throws Exception {
    behaviour.put("a", k -> Result.requeueAfter(Duration.ofMinutes(10)));
    start(builder().maxReconcileInterval(Duration.ofMinutes(1)));
    controller.add("a");
    long t0 = nextCall().atNanos();
    awaitSettled(1);
    clock.step(Duration.ofMinutes(1));
    assertEquals(t0 + Duration.ofMinutes(1).toNanos(), nextCall().atNanos());
  }

  @Test
  void maxReconcileInterval_skipsKeysTheFilterLetsGo() throws Exception {
    start(builder().maxReconcileInterval(Duration.ofMinutes(1), key -> !key.startsWith("gone")));
    controller.add("gone-1");
    nextCall();
    awaitSettled(0); // not rescheduled
    controller.add("kept");
    nextCall();
    awaitSettled(1);
  }

  @Test
  void maxReconcileInterval_rejectsBadArguments() {
    ControllerBuilder<String> b = builder();
    assertEquals("interval must be positive, was PT0S", assertThrows(
        IllegalArgumentException.class, () -> b.maxReconcileInterval(Duration.ZERO))
        .getMessage());
    assertEquals("interval must not be null", assertThrows(NullPointerException.class,
        () -> b.maxReconcileInterval(null)).getMessage());
    assertEquals("keep must not be null", assertThrows(NullPointerException.class,
        () -> b.maxReconcileInterval(Duration.ofMinutes(1), null)).getMessage());
  }

  @Test
  void maxReconcileInterval_refusedForANullFilter_leavesTheBuilderWithoutAnInterval()
      throws Exception {
    ControllerBuilder<String> b = builder();
    assertThrows(NullPointerException.class,
        () -> b.maxReconcileInterval(Duration.ofMinutes(1), null));
    start(b);
    controller.add("a");
    nextCall();
    await().atMost(10, SECONDS).until(() -> {
      ControllerStatus s = controller.status();
      return s.busyWorkers() == 0 && s.queued() == 0;
    });
    assertEquals(0, controller.status().waiting(),
        "the refused call must not have set an interval: the key is not scheduled again");
    clock.step(Duration.ofMinutes(1));
    assertNull(calls.poll(200, java.util.concurrent.TimeUnit.MILLISECONDS),
        "reconciled again by an interval the builder refused");
  }

  @Test
  void maxRetries_refusedArguments_leaveTheKeyRetriedForever() throws Exception {
    behaviour.put("a", k -> {
      throw new IllegalStateException("down");
    });
    ControllerBuilder<String> b = builder();
    assertThrows(NullPointerException.class, () -> b.maxRetries(0, null));
    assertThrows(IllegalArgumentException.class, () -> b.maxRetries(-1, (k, n, e) -> {}));
    start(b);
    controller.add("a");
    nextCall();
    awaitSettled(1); // its back-off retry waits: not dropped at a limit the builder refused
  }

  // --- frictions (issue #17 item 6) ---

  @Test
  void aPriorityOnAQueueWithoutPriorities_isRefusedNamingTheArgument() throws Exception {
    start(builder());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> controller.add("a", AddOptions.ofPriority(5)));
    assertTrue(e.getMessage().startsWith("options: priority 5 needs a priority queue"),
        e.getMessage());
    controller.add("b", AddOptions.ofPriority(0)); // the default priority is no request
    assertEquals("b", nextCall().key());
    controller.add("a");
    assertEquals("a", nextCall().key(), "the queue goes on");
  }

  @Test
  void twoRunningControllersWithOneNameOnOneMetricsProvider_theSecondStartIsRefused()
      throws Exception {
    start(builder());
    Controller<String> twin = builder().build();
    IllegalStateException e = assertThrows(IllegalStateException.class, twin::start);
    assertTrue(e.getMessage().contains("another controller named options is running"),
        e.getMessage());
    assertFalse(twin.isRunning());
    Controller<String> other = Controller.<String>builder("options").clock(clock)
        .metricsProvider(new RecordingMetricsProvider()).reconciler(k -> null).build();
    other.start(); // its own series
    other.close();
    controller.close();
    twin.start(); // the name is free again
    twin.close();
  }

  @Test
  void awaitTermination_returnsWhenAnotherThreadStopsTheController() throws Exception {
    Controller<String> never = builder().build();
    assertTrue(never.awaitTermination(Duration.ZERO), "never started: nothing to wait for");
    start(builder());
    assertFalse(controller.awaitTermination(Duration.ZERO), "running");
    CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
      try {
        return controller.awaitTermination(Duration.ofHours(1));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    });
    controller.add("a");
    nextCall();
    assertFalse(waiter.isDone());
    assertTrue(controller.stop(Duration.ofSeconds(5)).completed());
    assertTrue(waiter.get(10, SECONDS));
    assertEquals(List.of(), List.copyOf(calls));
  }
}
