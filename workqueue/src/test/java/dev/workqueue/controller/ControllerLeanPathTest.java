package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The controller on its lean path: no-op metrics (the default), a logging binding whose MDC
 * keeps nothing (slf4j-nop's, slf4j-simple's; this module's tests run logback, so the binding's
 * answer is overridden) and a plain {@link Reconciler}. The worker then makes no context, reads
 * no attempt count, sets no gauge and reads the clock once per reconcile; what the controller
 * promises must not change: outcomes and back-off, busy workers and the last reconcile in
 * {@code status}, the keys still running at a stop, and a {@link ContextualReconciler}'s
 * attempts.
 */
class ControllerLeanPathTest {
  private static final long MS = 1_000_000L;

  private final FakeClock clock = new FakeClock();
  private final BlockingQueue<Long> calls = new LinkedBlockingQueue<>();
  private Controller<String> controller;

  private ControllerBuilder<String> lean(Reconciler<String> reconciler) {
    ControllerBuilder<String> b = Controller.<String>builder("lean").clock(clock)
        .reconciler(reconciler);
    b.mdcKeepsValues = false;
    return b;
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ZERO);
    }
  }

  private long nextCall() throws InterruptedException {
    Long at = calls.poll(10, SECONDS);
    assertNotNull(at, "the reconciler was not called");
    return at;
  }

  @Test
  void aFailure_isRetriedWithBackOff_andASuccessIsSeenInStatus() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    controller = lean(key -> {
      calls.add(clock.nanoTime());
      if (attempts.incrementAndGet() == 1) {
        throw new IllegalStateException("first attempt fails");
      }
      return Result.success();
    }).build();
    assertEquals(Optional.empty(), controller.status().sinceLastReconcile());
    controller.start();
    controller.add("a");
    long first = nextCall();
    await().atMost(10, SECONDS).until(() -> controller.status().waiting() == 1
        && controller.status().busyWorkers() == 0);
    clock.stepMillis(5); // the default limiter's first back-off
    assertEquals(first + 5 * MS, nextCall());
    await().atMost(10, SECONDS).until(() -> controller.status().busyWorkers() == 0
        && controller.status().sinceLastReconcile().isPresent());
    clock.stepMillis(3);
    assertEquals(Optional.of(Duration.ofMillis(3)), controller.status().sinceLastReconcile());
    assertTrue(controller.stop(Duration.ofSeconds(1)).completed());
    assertEquals(Optional.of(Duration.ofMillis(3)), controller.status().sinceLastReconcile(),
        "a stopped controller still knows its last reconcile");
  }

  @Test
  void busyWorkers_andTheKeysStillRunningAtAStop_comeFromTheWorkersSlots() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    controller = lean(key -> {
      calls.add(clock.nanoTime());
      release.await();
      return Result.success();
    }).workers(3).build();
    controller.start();
    controller.add("x");
    controller.add("y");
    nextCall();
    nextCall();
    assertEquals(2, controller.status().busyWorkers());
    CompletableFuture<StopResult<String>> stopped = CompletableFuture.supplyAsync(() -> {
      try {
        return controller.stop(Duration.ofSeconds(5));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    clock.step(Duration.ofSeconds(5));
    StopResult<String> r = stopped.get(10, SECONDS);
    assertFalse(r.completed());
    List<String> running = new ArrayList<>(r.stillRunning());
    Collections.sort(running);
    assertEquals(List.of("x", "y"), running);
    await().atMost(10, SECONDS).until(() -> controller.status().busyWorkers() == 0);
    assertTrue(controller.awaitTermination(Duration.ofSeconds(10)), "interrupted, they exit");
  }

  @Test
  void aContextualReconciler_stillSeesItsAttempts_withoutAnMdc() throws Exception {
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    ControllerBuilder<String> b = Controller.<String>builder("lean").clock(clock)
        .reconciler((key, context) -> {
          seen.add(key + " attempt " + context.attempt() + " id " + context.reconcileId());
          calls.add(clock.nanoTime());
          if (context.attempt() == 1) {
            throw new IllegalStateException("first attempt fails");
          }
          return Result.success();
        });
    b.mdcKeepsValues = false;
    controller = b.build();
    controller.start();
    controller.add("k");
    nextCall();
    await().atMost(10, SECONDS).until(() -> controller.status().waiting() == 1
        && controller.status().busyWorkers() == 0);
    clock.stepMillis(5);
    nextCall();
    assertEquals(List.of("k attempt 1 id 1", "k attempt 2 id 2"), seen);
  }
}
