package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A controller running on a {@link PriorityWorkQueue}: keys are reconciled highest priority
 * first, and a requeue keeps the key's priority unless the result sets one. One worker, a fake
 * clock; a "block" key holds the worker while the test lines up the next keys.
 */
class ControllerPriorityQueueTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
  private final Map<String, Function<String, Result>> behaviour = new ConcurrentHashMap<>();
  private volatile CountDownLatch release = new CountDownLatch(0);
  private DefaultController<String> controller;

  private ControllerBuilder<String> builder() {
    return Controller.<String>builder("pq").clock(clock).metricsProvider(metrics)
        .reconciler(key -> {
          calls.add(key);
          if (key.startsWith("block")) {
            release.await();
          }
          Function<String, Result> f = behaviour.get(key);
          return f == null ? Result.success() : f.apply(key);
        });
  }

  private void start(ControllerBuilder<String> b) {
    controller = (DefaultController<String>) b.build();
    controller.start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    release.countDown();
    if (controller != null) {
      controller.stop(Duration.ofSeconds(10));
    }
  }

  private String nextCall() throws InterruptedException {
    String key = calls.poll(10, SECONDS);
    assertNotNull(key, "the reconciler was not called");
    return key;
  }

  private void awaitIdle() {
    await().atMost(10, SECONDS).until(() ->
        metrics.value("pq", "controller_runtime_active_workers") == 0.0
            && controller.queue().size() == 0);
  }

  /** Holds the single worker in a reconcile of "block" until {@link #release} counts down. */
  private void holdTheWorker() throws InterruptedException {
    release = new CountDownLatch(1);
    if (controller.queue() instanceof PriorityWorkQueue) {
      controller.add("block", AddOptions.ofPriority(1000));
    } else {
      controller.add("block");
    }
    assertEquals("block", nextCall());
  }

  @Test
  void keysAreReconciledHighestPriorityFirst() throws Exception {
    start(builder().priorityQueue(true));
    assertTrue(controller.queue() instanceof PriorityWorkQueue);
    holdTheWorker();
    controller.add("initial-1", AddOptions.ofPriority(-100));
    controller.add("initial-2", AddOptions.ofPriority(-100));
    controller.add("changed");
    controller.add("urgent", AddOptions.ofPriority(10));
    controller.add("initial-2"); // rises to 0: behind "changed"
    release.countDown();
    assertEquals(List.of("urgent", "changed", "initial-2", "initial-1"),
        List.of(nextCall(), nextCall(), nextCall(), nextCall()));
  }

  @Test
  void keysAddedWhileStopped_keepTheirPriority_atTheNextStart() throws Exception {
    start(builder().priorityQueue(true));
    awaitIdle();
    controller.stop(Duration.ofSeconds(10));
    controller.add("replayed-1", AddOptions.ofPriority(-100));
    controller.add("changed");
    controller.add("replayed-2", AddOptions.ofPriority(-100));
    controller.add("urgent", AddOptions.ofPriority(10));
    controller.add("raised", AddOptions.ofPriority(-100));
    controller.add("raised", AddOptions.ofPriority(5)); // the highest of a key's adds is kept
    controller.add("urgent", AddOptions.ofPriority(-100));
    controller.addAfter("later", Duration.ofHours(1)); // kept, and queued at once, at 0
    release = new CountDownLatch(1);
    controller.add("block", AddOptions.ofPriority(1000));
    controller.start();
    assertEquals("block", nextCall());
    release.countDown();
    assertEquals(List.of("urgent", "raised", "changed", "later", "replayed-1", "replayed-2"),
        List.of(nextCall(), nextCall(), nextCall(), nextCall(), nextCall(), nextCall()));
  }

  /** Returns {@code first} (or throws it) on the first call, success after. */
  private static Function<String, Result> once(Object first) {
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    return key -> {
      if (done.getAndSet(true)) {
        return Result.success();
      }
      if (first instanceof RuntimeException e) {
        throw e;
      }
      return (Result) first;
    };
  }

  @Test
  void failedKey_isRetriedAtItsPriority() throws Exception {
    behaviour.put("k", once(new IllegalStateException("boom")));
    start(builder().priorityQueue(true));
    controller.add("k", AddOptions.ofPriority(5));
    assertEquals("k", nextCall());
    awaitIdle();
    assertEquals(1, controller.queue().waitingCount(), "requeued with back-off");
    holdTheWorker();
    controller.add("low"); // priority 0, ready before k's retry
    clock.stepMillis(5); // k's back-off ends: ready at priority 5 if the priority was kept
    release.countDown();
    assertEquals(List.of("k", "low"), List.of(nextCall(), nextCall()));
  }

  @Test
  void requeueResults_keepThePriority_unlessTheResultSetsOne() throws Exception {
    behaviour.put("keeps", once(Result.requeue()));
    behaviour.put("drops", once(Result.requeueAfter(Duration.ofMillis(5)).withPriority(-1)));
    start(builder().priorityQueue(true)
        .rateLimiter(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofMillis(5))));
    controller.add("keeps", AddOptions.ofPriority(3));
    controller.add("drops", AddOptions.ofPriority(3));
    assertEquals(List.of("keeps", "drops"), List.of(nextCall(), nextCall()));
    awaitIdle();
    holdTheWorker();
    controller.add("zero");
    clock.stepMillis(5); // both requeues come due: keeps at 3, drops at -1
    release.countDown();
    assertEquals(List.of("keeps", "zero", "drops"), List.of(nextCall(), nextCall(), nextCall()));
  }

  @Test
  void successWithAPriority_isStillASuccess() throws Exception {
    behaviour.put("k", key -> Result.success().withPriority(7));
    start(builder().priorityQueue(true));
    controller.add("k");
    assertEquals("k", nextCall());
    awaitIdle();
    assertEquals(0, controller.queue().waitingCount());
    assertEquals(1, metrics.count("pq", "controller_runtime_reconcile_total{result=success}"));
  }

  @Test
  void aSuppliedPriorityQueue_getsThePriorityHandlingToo() throws Exception {
    start(builder().queue(() -> WorkQueue.<String>builder().clock(clock)
        .buildPriority(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1)))));
    holdTheWorker();
    controller.add("b");
    controller.add("a", AddOptions.ofPriority(1));
    release.countDown();
    assertEquals(List.of("a", "b"), List.of(nextCall(), nextCall()));
  }

  @Test
  void addWithOptions_onAPlainQueue_honoursTheDelay_andRefusesAPriority() throws Exception {
    start(builder());
    holdTheWorker();
    controller.add("first");
    controller.add("second", AddOptions.DEFAULT);
    controller.add("later", AddOptions.ofPriority(0).withAfter(Duration.ofSeconds(1)));
    assertThrows(IllegalArgumentException.class,
        () -> controller.add("refused", AddOptions.ofPriority(9).withAfter(Duration.ZERO)));
    release.countDown();
    assertEquals(List.of("first", "second"), List.of(nextCall(), nextCall()));
    awaitIdle();
    assertEquals(1, controller.queue().waitingCount());
    clock.stepMillis(1000);
    assertEquals("later", nextCall());
  }

  @Test
  void priorityQueueWithASuppliedQueue_isRejected() {
    ControllerBuilder<String> b = builder().priorityQueue(true)
        .queue(() -> WorkQueue.<String>builder().buildRateLimiting(
            RateLimiters.defaultControllerRateLimiter()));
    assertThrows(IllegalStateException.class, b::build);
    assertThrows(NullPointerException.class, () -> {
      start(builder().priorityQueue(true));
      controller.add("x", null);
    });
  }
}
