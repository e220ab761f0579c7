package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.trace.CarriedAdd;
import dev.workqueue.trace.HandOut;
import dev.workqueue.trace.ReconcileTracer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A traced controller: each reconcile is bracketed on its worker's thread with the adds it
 * covers, and a requeue made by its outcome runs inside the bracket, so the retry carries the
 * failed reconcile's context.
 */
class ReconcileTracerTest {
  private final FakeClock clock = new FakeClock();
  private final BlockingQueue<Traced> reconciles = new LinkedBlockingQueue<>();
  private final AtomicInteger calls = new AtomicInteger();
  private Controller<String> controller;

  /** A reconcile as the tracer saw it. */
  record Traced(String name, String key, int attempt, List<Object> carried,
      List<Duration> delays, String outcome, Throwable failure) {}

  /** Spans as strings: the current one is a thread-local, as a tracing library keeps it. */
  final class Tracer implements ReconcileTracer<String> {
    final ThreadLocal<String> current = new ThreadLocal<>();
    final List<Duration> addDelays = new ArrayList<>();

    @Override
    public synchronized Object onAdd(String key, Duration delay) {
      addDelays.add(delay);
      return current.get();
    }

    @Override
    public Reconcile onReconcile(String name, String key, int attempt, HandOut handOut) {
      String span = "reconcile-" + key + "-" + attempt;
      current.set(span);
      List<Object> carried = new ArrayList<>();
      List<Duration> delays = new ArrayList<>();
      for (CarriedAdd c : handOut.carried()) {
        carried.add(c.context());
        delays.add(c.delay());
      }
      return (outcome, failure) -> {
        current.remove();
        reconciles.add(new Traced(name, key, attempt, carried, delays, outcome, failure));
      };
    }
  }

  private final Tracer tracer = new Tracer();

  @AfterEach
  void stop() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ZERO);
    }
  }

  private Traced next() throws InterruptedException {
    Traced t = reconciles.poll(10, SECONDS);
    assertNotNull(t, "no reconcile was traced");
    return t;
  }

  @Test
  void mergedAdds_andARetry_areCarriedByTheReconcilesThatCoverThem() throws Exception {
    controller = Controller.<String>builder("ctl").clock(clock).tracer(tracer)
        .reconciler(key -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("first try fails");
          }
          return dev.workqueue.controller.Result.success();
        }).build();
    tracer.current.set("event-1");
    controller.add("a");
    tracer.current.set("event-2");
    controller.add("a"); // merged: one reconcile covers both
    tracer.current.remove();
    controller.start();

    Traced first = next();
    assertEquals("ctl", first.name());
    assertEquals(1, first.attempt());
    assertEquals(List.of("event-1", "event-2"), first.carried());
    assertEquals(ReconcileTracer.ERROR, first.outcome());
    assertTrue(first.failure() instanceof IllegalStateException);

    clock.stepMillis(5); // the default limiter's first back-off
    Traced retry = next();
    assertEquals(2, retry.attempt());
    assertEquals(List.of("reconcile-a-1"), retry.carried(), "the requeue ran inside the span");
    assertEquals(List.of(Duration.ofMillis(5)), retry.delays());
    assertEquals(ReconcileTracer.SUCCESS, retry.outcome());
    assertNull(retry.failure());
  }

  @Test
  void requeueAfter_isReportedAsItsOutcome() throws Exception {
    controller = Controller.<String>builder("ctl").clock(clock).tracer(tracer)
        .reconciler(key -> calls.incrementAndGet() == 1
            ? dev.workqueue.controller.Result.requeueAfter(Duration.ofSeconds(1))
            : dev.workqueue.controller.Result.success())
        .build();
    controller.start();
    controller.add("b");
    assertEquals(ReconcileTracer.REQUEUE_AFTER, next().outcome());
    clock.step(Duration.ofSeconds(1));
    Traced after = next();
    assertEquals(List.of(Duration.ofSeconds(1)), after.delays());
    assertEquals(List.of("reconcile-b-1"), after.carried());
  }

  @Test
  void throwingTracer_costsNoReconcile() throws Exception {
    BlockingQueue<String> done = new LinkedBlockingQueue<>();
    controller = Controller.<String>builder("ctl").clock(clock)
        .tracer(new ReconcileTracer<String>() {
          @Override
          public Object onAdd(String key, Duration delay) {
            throw new IllegalStateException("boom");
          }

          @Override
          public Reconcile onReconcile(String name, String key, int attempt, HandOut h) {
            throw new IllegalStateException("boom");
          }
        })
        .reconciler(key -> {
          done.add(key);
          return dev.workqueue.controller.Result.success();
        }).build();
    controller.start();
    controller.add("c");
    assertEquals("c", done.poll(10, SECONDS));
  }

  @Test
  void aTracerThrowingAnError_costsNoReconcile_andLeavesNoKeyProcessing() throws Exception {
    BlockingQueue<String> done = new LinkedBlockingQueue<>();
    controller = Controller.<String>builder("ctl").clock(clock)
        .tracer(new ReconcileTracer<String>() {
          @Override
          public Object onAdd(String key, Duration delay) {
            return null;
          }

          @Override
          public Reconcile onReconcile(String name, String key, int attempt, HandOut h) {
            throw new NoClassDefFoundError("an optional tracing library is missing");
          }
        })
        .reconciler(key -> {
          done.add(key);
          return dev.workqueue.controller.Result.success();
        }).build();
    controller.start();
    controller.add("c");
    assertEquals("c", done.poll(10, SECONDS), "reconciled despite the tracer's Error");
    controller.add("c");
    assertEquals("c", done.poll(10, SECONDS), "and again: the key was done");
  }

  @Test
  void theSpanEnds_beforeDone_soAnAddHeldDuringTheReconcileIsNotYetInLine() throws Exception {
    BlockingQueue<Integer> queuedAtEnd = new LinkedBlockingQueue<>();
    controller = Controller.<String>builder("ctl").clock(clock).workers(1)
        .tracer(new ReconcileTracer<String>() {
          @Override
          public Object onAdd(String key, Duration delay) {
            return null;
          }

          @Override
          public Reconcile onReconcile(String name, String key, int attempt, HandOut h) {
            return (outcome, failure) -> queuedAtEnd.add(controller.status().queued());
          }
        })
        .reconciler(key -> {
          if (calls.incrementAndGet() == 1) {
            controller.add(key); // held while processing: done puts it in line
          }
          return dev.workqueue.controller.Result.success();
        }).build();
    controller.start();
    controller.add("a");
    assertEquals(0, queuedAtEnd.poll(10, SECONDS), "the span ended after done");
    assertEquals(0, queuedAtEnd.poll(10, SECONDS)); // the held add's own reconcile
  }

  @Test
  void aHandOutThatNoReconcileTook_isNotReportedForTheNextKey() {
    List<HandOut> seen = new ArrayList<>();
    ReconcileTracing<String> tracing = new ReconcileTracing<>(new ReconcileTracer<String>() {
      @Override
      public Object onAdd(String key, Duration delay) {
        return null;
      }

      @Override
      public Reconcile onReconcile(String name, String key, int attempt, HandOut h) {
        seen.add(h);
        return (outcome, failure) -> {};
      }
    });
    HandOut ofA = new HandOut(List.of(new CarriedAdd("event-a", Duration.ZERO, Duration.ZERO)),
        0, Duration.ZERO);
    tracing.onHandOut("a", ofA); // "a" was handed out and deferred: no reconcile took it
    tracing.start("ctl", "b", 1, org.slf4j.LoggerFactory.getLogger(getClass()));
    tracing.end("ctl", org.slf4j.LoggerFactory.getLogger(getClass()));
    assertEquals(List.of(), seen.get(0).carried(), "b's reconcile carries none of a's adds");
  }

  @Test
  void tracer_null_isRejectedByName() {
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> Controller.<String>builder("ctl").tracer(null));
    assertTrue(e.getMessage().contains("tracer"), e.getMessage());
  }
}
