package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * What a controller logs and under which logger: each controller its own logger, and the MDC
 * keys of {@link ReconcileContext} on every line logged during a reconcile and its outcome, by
 * the controller and by the reconciler alike, cleared afterwards. Read through logback, the
 * workqueue tests' binding (slf4j-simple keeps no MDC).
 */
class ControllerLoggingTest {
  private static final String NAME = "logging-test";

  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger controllerLogger =
      (Logger) LoggerFactory.getLogger("dev.workqueue.controller.Controller." + NAME);
  private final Logger reconcilerLogger = (Logger) LoggerFactory.getLogger("test.reconciler");
  private Controller<String> controller;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ofSeconds(5));
    }
    controllerLogger.detachAppender(appender);
    reconcilerLogger.detachAppender(appender);
    controllerLogger.setLevel(null);
  }

  @Test
  void linesLoggedDuringAReconcile_carryTheMdc_underTheControllersOwnLogger() throws Exception {
    appender.start();
    controllerLogger.setLevel(Level.INFO); // the tests' configuration turns controllers off
    controllerLogger.addAppender(appender);
    reconcilerLogger.addAppender(appender);
    AtomicInteger calls = new AtomicInteger();
    controller = Controller.<String>builder(NAME)
        .reconciler(key -> {
          reconcilerLogger.warn("reconciling {}", key);
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("first attempt fails");
          }
          return Result.success();
        })
        .build();
    controller.start();
    controller.add("ns/a");
    await().atMost(10, SECONDS).until(() -> calls.get() == 2
        && controller.status().busyWorkers() == 0);
    controller.add("probe");
    await().atMost(10, SECONDS).until(() -> calls.get() == 3);

    List<ILoggingEvent> events = List.copyOf(appender.list);
    ILoggingEvent failed = events.stream()
        .filter(e -> e.getFormattedMessage().contains("failed; retrying")).findFirst()
        .orElseThrow(() -> new AssertionError("no retry line in " + events));
    assertEquals("dev.workqueue.controller.Controller." + NAME, failed.getLoggerName(),
        "each controller logs under its own logger");
    assertEquals(NAME, failed.getMDCPropertyMap().get(ReconcileContext.MDC_CONTROLLER));
    assertEquals("ns/a", failed.getMDCPropertyMap().get(ReconcileContext.MDC_KEY));
    assertEquals("1", failed.getMDCPropertyMap().get(ReconcileContext.MDC_ATTEMPT));

    List<ILoggingEvent> own = events.stream()
        .filter(e -> e.getLoggerName().equals("test.reconciler")).toList();
    assertEquals(3, own.size(), events.toString());
    assertEquals("1", own.get(0).getMDCPropertyMap().get(ReconcileContext.MDC_ATTEMPT));
    assertEquals("2", own.get(1).getMDCPropertyMap().get(ReconcileContext.MDC_ATTEMPT),
        "the retry is the second attempt");
    assertEquals("probe", own.get(2).getMDCPropertyMap().get(ReconcileContext.MDC_KEY),
        "the next reconcile on the worker has its own key");
    String id1 = own.get(0).getMDCPropertyMap().get(ReconcileContext.MDC_RECONCILE_ID);
    String id2 = own.get(1).getMDCPropertyMap().get(ReconcileContext.MDC_RECONCILE_ID);
    assertTrue(id1 != null && id2 != null && !id1.equals(id2), id1 + " " + id2);
    assertEquals(id1, failed.getMDCPropertyMap().get(ReconcileContext.MDC_RECONCILE_ID),
        "the outcome's line belongs to the reconcile it reports");
  }

  @Test
  void theWorkerLeavesNoControllerKeyInTheMdc() throws Exception {
    List<Map<String, String>> afterLoop = new CopyOnWriteArrayList<>();
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
        1, r -> {
          Thread t = new Thread(r);
          t.setDaemon(true);
          return t;
        });
    AtomicInteger calls = new AtomicInteger();
    try {
      controller = Controller.<String>builder(NAME + "-clear")
          .executor(task -> pool.execute(() -> {
            MDC.put("caller", "kept");
            task.run(); // the worker loop, until the controller stops
            Map<String, String> left = MDC.getCopyOfContextMap();
            afterLoop.add(left == null ? Map.of() : left);
          }))
          .reconciler(key -> {
            calls.incrementAndGet();
            if (key.equals("fails")) {
              throw new IllegalStateException("the failure path clears it too");
            }
            return Result.success();
          })
          .build();
      controller.start();
      controller.add("a");
      controller.add("fails");
      await().atMost(10, SECONDS).until(() -> calls.get() >= 2);
      assertTrue(controller.stop(Duration.ofSeconds(5)).completed());
      controller = null;
      await().atMost(10, SECONDS).until(() -> afterLoop.size() == 1);
      assertEquals(Map.of("caller", "kept"), afterLoop.get(0),
          "the controller's keys are removed, the pool thread's own are left");
    } finally {
      pool.shutdownNow();
    }
  }
}
