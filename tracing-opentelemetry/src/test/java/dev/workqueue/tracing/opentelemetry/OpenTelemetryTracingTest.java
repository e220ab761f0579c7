package dev.workqueue.tracing.opentelemetry;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.trace.ReconcileTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The spans of a traced controller on the SDK's in-memory exporter: events, merged adds, a
 * failed reconcile and its retry, with their parents and links; the bound on links.
 */
class OpenTelemetryTracingTest {
  private static final String REMOTE_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String REMOTE_PARENT =
      "00-" + REMOTE_TRACE + "-00f067aa0ba902b7-01";

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
      .build();
  private final OpenTelemetryTracing tracing = OpenTelemetryTracing.create(sdk);
  private final FakeClock clock = new FakeClock();
  private final AtomicInteger calls = new AtomicInteger();
  private Controller<String> controller;

  @AfterEach
  void close() throws InterruptedException {
    if (controller != null) {
      controller.stop(Duration.ZERO);
    }
    sdk.close();
  }

  private List<SpanData> reconciles(int n) {
    await().atMost(Duration.ofSeconds(10)).until(() -> reconcileSpans().size() >= n);
    return reconcileSpans();
  }

  private List<SpanData> reconcileSpans() {
    return exporter.getFinishedSpanItems().stream()
        .filter(s -> s.getName().equals(OpenTelemetryTracing.RECONCILE_SPAN))
        .collect(Collectors.toList());
  }

  private SpanData span(String name) {
    return exporter.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name))
        .findFirst().orElseThrow(() -> new AssertionError("no span " + name));
  }

  private static <T> T attr(SpanData s, String key, Class<T> type) {
    Object v = type == Long.class ? s.getAttributes().get(AttributeKey.longKey(key))
        : s.getAttributes().get(AttributeKey.stringKey(key));
    return type.cast(v);
  }

  @SuppressWarnings("try") // the span is current inside the block: that is its use
  private void event(String name, String traceparent) {
    try (OpenTelemetryTracing.EventSpan e =
        tracing.startEvent(name, Map.of("k8s.object.name", "a"), traceparent)) {
      controller.add("ns/a");
    }
  }

  @Test
  void anEvent_twoMergedAdds_andARetry_makeOneTrace() {
    controller = Controller.<String>builder("configmaps").clock(clock).tracer(tracing)
        .reconciler(key -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("backend down");
          }
          return Result.success();
        }).build();
    event("update-1", REMOTE_PARENT); // another traced system changed the object
    event("update-2", null);
    controller.start();

    SpanData failed = reconciles(1).get(0);
    SpanData e1 = span("update-1");
    SpanData e2 = span("update-2");
    assertEquals(REMOTE_TRACE, e1.getTraceId(), "the event joins the writer's trace");
    assertEquals("00f067aa0ba902b7", e1.getParentSpanId());
    assertFalse(e2.getParentSpanContext().isValid(), "no traceparent: a new trace");
    assertEquals(SpanKind.CONSUMER, failed.getKind());
    assertEquals(List.of(e1.getSpanContext(), e2.getSpanContext()),
        failed.getLinks().stream().map(LinkData::getSpanContext).collect(Collectors.toList()));
    assertEquals(e1.getSpanId(), failed.getParentSpanId(), "continues the first add's trace");
    assertEquals(REMOTE_TRACE, failed.getTraceId());
    assertEquals("configmaps", attr(failed, OpenTelemetryTracing.CONTROLLER, String.class));
    assertEquals("ns/a", attr(failed, OpenTelemetryTracing.KEY, String.class));
    assertEquals(1L, attr(failed, OpenTelemetryTracing.ATTEMPT, Long.class));
    assertEquals(2L, attr(failed, OpenTelemetryTracing.ADDS, Long.class));
    assertEquals(0L, attr(failed, OpenTelemetryTracing.ADDS_UNLINKED, Long.class));
    assertEquals(ReconcileTracer.ERROR, attr(failed, OpenTelemetryTracing.OUTCOME, String.class));
    assertEquals(5L, attr(failed, OpenTelemetryTracing.REQUEUE_DELAY_MS, Long.class));
    assertEquals(StatusCode.ERROR, failed.getStatus().getStatusCode());
    assertEquals("exception", failed.getEvents().get(0).getName());

    clock.stepMillis(5); // the back-off
    SpanData retry = reconciles(2).get(1);
    assertEquals(2L, attr(retry, OpenTelemetryTracing.ATTEMPT, Long.class));
    assertEquals(ReconcileTracer.SUCCESS, attr(retry, OpenTelemetryTracing.OUTCOME, String.class));
    assertEquals(failed.getSpanId(), retry.getParentSpanId(), "the retry is the failure's child");
    assertEquals(REMOTE_TRACE, retry.getTraceId(), "one trace from the event to the retry");
    LinkData link = retry.getLinks().get(0);
    assertEquals(failed.getSpanContext(), link.getSpanContext());
    assertEquals(5L, link.getAttributes().get(AttributeKey.longKey(OpenTelemetryTracing.ADD_DELAY_MS)));
    assertEquals(5L, link.getAttributes().get(AttributeKey.longKey(OpenTelemetryTracing.ADD_AGE_MS)));
    assertNull(attr(retry, OpenTelemetryTracing.REQUEUE_DELAY_MS, Long.class));
    assertEquals(StatusCode.UNSET, retry.getStatus().getStatusCode());
  }

  @Test
  void links_areBoundedAtEight_andTheRestCounted() {
    controller = Controller.<String>builder("configmaps").clock(clock).tracer(tracing)
        .reconciler(key -> Result.success()).build();
    for (int i = 0; i < 11; i++) {
      event("update-" + i, null);
    }
    controller.start();
    SpanData r = reconciles(1).get(0);
    assertEquals(8, r.getLinks().size());
    assertEquals(span("update-0").getSpanContext(), r.getLinks().get(0).getSpanContext());
    assertEquals(span("update-7").getSpanContext(), r.getLinks().get(7).getSpanContext());
    assertEquals(11L, attr(r, OpenTelemetryTracing.ADDS, Long.class));
    assertEquals(3L, attr(r, OpenTelemetryTracing.ADDS_UNLINKED, Long.class));
  }

  @Test
  void rootReconciles_onlyLink() {
    controller = Controller.<String>builder("configmaps").clock(clock)
        .tracer(tracing.rootReconciles()).reconciler(key -> Result.success()).build();
    event("update", null);
    controller.start();
    SpanData r = reconciles(1).get(0);
    assertFalse(r.getParentSpanContext().isValid());
    assertEquals(span("update").getSpanContext(), r.getLinks().get(0).getSpanContext());
  }

  @Test
  void addsOutsideASpan_carryNothing_andAnInvalidTraceparentIsIgnored() {
    controller = Controller.<String>builder("configmaps").clock(clock).tracer(tracing)
        .reconciler(key -> Result.success()).build();
    controller.add("ns/a");
    event("update", "00-not-a-trace-01");
    controller.start();
    SpanData r = reconciles(1).get(0);
    assertEquals(1L, attr(r, OpenTelemetryTracing.ADDS, Long.class));
    assertFalse(span("update").getParentSpanContext().isValid());
    assertEquals(span("update").getSpanId(), r.getParentSpanId());
  }

  @Test
  void badArguments_areRejectedByName() {
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> OpenTelemetryTracing.create(null));
    assertTrue(e.getMessage().contains("openTelemetry"), e.getMessage());
    e = assertThrows(NullPointerException.class, () -> tracing.startEvent(null, Map.of(), null));
    assertTrue(e.getMessage().contains("name"), e.getMessage());
  }
}
