package dev.workqueue;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.controller.Controller;
import dev.workqueue.controller.ControllerBuilder;
import dev.workqueue.controller.Result;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * {@link BadInputTest}'s table for the controller (its builder, a running and a stopped
 * controller). Each row is a call with bad input or out of order, its documented result (an
 * exception naming the argument, a return value, or a no-op), and then the check that the
 * controller still works: a running controller still reconciles a fresh key; a stopped one
 * stays so. The limiters' rows are in {@code RateLimitersTest}, the scheduling queue's in
 * {@code SchedulingBadInputTest}.
 */
class ComponentBadInputTest {
  private static final Duration NEGATIVE = Duration.ofSeconds(-1);

  // ---- the controller ----------------------------------------------------------------------

  /** A controller on a fake clock whose reconciler records the keys it is called with. */
  static final class ControllerFixture {
    final FakeClock clock = new FakeClock();
    final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
    final ControllerBuilder<String> builder = Controller.<String>builder("bad-input")
        .clock(clock)
        .reconciler(key -> {
          calls.add(key);
          return Result.success();
        });
    Controller<String> controller;

    Controller<String> running() {
      controller = builder.build();
      controller.start();
      return controller;
    }
  }

  @FunctionalInterface
  interface ControllerCall {
    Object run(ControllerFixture f) throws Exception;
  }

  record ControllerRow(String name, boolean stopFirst, ControllerCall call,
      Class<? extends Throwable> thrown, String message) {}

  private static ControllerRow throwsOnRunning(String name, ControllerCall call,
      Class<? extends Throwable> thrown, String message) {
    return new ControllerRow(name, false, call, thrown, message);
  }

  static List<ControllerRow> controllerRows() {
    return List.of(
        throwsOnRunning("add(null)", f -> {
          f.controller.add(null);
          return null;
        }, NullPointerException.class, "key must not be null"),
        throwsOnRunning("addAfter(null, 1s)", f -> {
          f.controller.addAfter(null, Duration.ofSeconds(1));
          return null;
        }, NullPointerException.class, "key must not be null"),
        throwsOnRunning("addAfter(x, null)", f -> {
          f.controller.addAfter("x", null);
          return null;
        }, NullPointerException.class, "delay must not be null"),
        throwsOnRunning("stop(null)", f -> f.controller.stop(null),
            NullPointerException.class, "timeout must not be null"),
        throwsOnRunning("stop(-1s)", f -> f.controller.stop(NEGATIVE),
            IllegalArgumentException.class, "timeout must not be negative, was PT-1S"),
        throwsOnRunning("start() while running", f -> {
          f.controller.start();
          return null;
        }, IllegalStateException.class, "controller bad-input is already running"),
        throwsOnRunning("addAfter(x, -1s) reconciles x now", f -> {
          f.controller.addAfter("x", NEGATIVE);
          return f.calls.poll(10, SECONDS);
        }, null, "x"),
        new ControllerRow("add after stop is kept for the next start, not run now", true, f -> {
          f.controller.add("x");
          return f.calls.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }, null, null),
        new ControllerRow("addAfter after stop is kept for the next start", true, f -> {
          f.controller.addAfter("x", Duration.ZERO);
          return f.calls.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }, null, null),
        new ControllerRow("stop after stop returns a completed result", true,
            f -> f.controller.stop(Duration.ZERO).completed(), null, "true"),
        new ControllerRow("close after stop returns", true, f -> {
          f.controller.close();
          return f.controller.isRunning();
        }, null, "false"));
  }

  @TestFactory
  Stream<DynamicTest> controller_everyBadInputHasADocumentedResult_andItKeepsWorking() {
    return controllerRows().stream().map(row -> dynamicTest(row.name(), () ->
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> check(row))));
  }

  private static void check(ControllerRow row) throws Exception {
    ControllerFixture f = new ControllerFixture();
    Controller<String> c = f.running();
    try {
      if (row.stopFirst()) {
        assertTrue(c.stop(Duration.ofHours(1)).completed());
      }
      if (row.thrown() != null) {
        Throwable t = assertThrows(row.thrown(), () -> row.call().run(f));
        assertEquals(row.message(), t.getMessage());
      } else {
        Object result = row.call().run(f);
        assertEquals(row.message(), result == null ? null : String.valueOf(result));
      }
      if (c.isRunning()) {
        c.add("fresh");
        assertEquals("fresh", f.calls.poll(10, SECONDS), "a fresh key is reconciled");
      } else {
        c.add("fresh");
        assertEquals(null, f.calls.poll(100, java.util.concurrent.TimeUnit.MILLISECONDS),
            "nothing is reconciled while stopped");
      }
    } finally {
      c.stop(Duration.ofHours(1));
    }
  }

  @TestFactory
  Stream<DynamicTest> controllerBuilder_rejectsBadArgumentsAtTheSetter_namingThem() {
    ControllerBuilder<String> b = Controller.builder("x");
    record Bad(String name, org.junit.jupiter.api.function.Executable call,
        Class<? extends Throwable> thrown, String message) {}
    return Stream.of(
        new Bad("builder(null)", () -> Controller.builder(null),
            NullPointerException.class, "name must not be null"),
        new Bad("builder(\"\")", () -> Controller.builder(""),
            IllegalArgumentException.class, "name must not be empty"),
        new Bad("workers(0)", () -> b.workers(0),
            IllegalArgumentException.class, "workers must be at least 1, was 0"),
        new Bad("workers(-1)", () -> b.workers(-1),
            IllegalArgumentException.class, "workers must be at least 1, was -1"),
        new Bad("reconcileTimeout(null)", () -> b.reconcileTimeout(null),
            NullPointerException.class, "timeout must not be null"),
        new Bad("reconcileTimeout(-1s)", () -> b.reconcileTimeout(NEGATIVE),
            IllegalArgumentException.class, "timeout must be positive, was PT-1S"),
        new Bad("stopTimeout(null)", () -> b.stopTimeout(null),
            NullPointerException.class, "timeout must not be null"),
        new Bad("stopTimeout(-1s)", () -> b.stopTimeout(NEGATIVE),
            IllegalArgumentException.class, "timeout must not be negative, was PT-1S"),
        new Bad("maxRetries(-1, h)", () -> b.maxRetries(-1, (k, a, t) -> {}),
            IllegalArgumentException.class, "maxRetries must not be negative, was -1"),
        new Bad("maxRetries(1, null)", () -> b.maxRetries(1, null),
            NullPointerException.class, "handler must not be null"),
        new Bad("threadFactory(null)", () -> b.threadFactory(null),
            NullPointerException.class, "factory must not be null"),
        new Bad("executor(null)", () -> b.executor(null),
            NullPointerException.class, "executor must not be null"),
        new Bad("queue(null)", () -> b.queue(null),
            NullPointerException.class, "factory must not be null"),
        new Bad("rateLimiter(null)", () -> b.rateLimiter(null),
            NullPointerException.class, "limiter must not be null"),
        new Bad("clock(null)", () -> b.clock(null),
            NullPointerException.class, "clock must not be null"),
        new Bad("metricsProvider(null)", () -> b.metricsProvider(null),
            NullPointerException.class, "provider must not be null"),
        new Bad("queueMetricsProvider(null)", () -> b.queueMetricsProvider(null),
            NullPointerException.class, "provider must not be null"),
        new Bad("build() without a reconciler", b::build,
            IllegalStateException.class, "reconciler(...) is required"),
        new Bad("Result.requeueAfter(-1s)", () -> Result.requeueAfter(NEGATIVE),
            IllegalArgumentException.class, "delay must not be negative, was PT-1S"),
        new Bad("Result.requeueAfter(null)", () -> Result.requeueAfter(null),
            NullPointerException.class, "delay must not be null"))
        .map(bad -> dynamicTest(bad.name(), () -> {
          Throwable t = assertThrows(bad.thrown(), bad.call());
          assertEquals(bad.message(), t.getMessage());
        }));
  }
}
