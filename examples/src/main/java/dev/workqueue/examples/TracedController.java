package dev.workqueue.examples;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.tracing.opentelemetry.OpenTelemetryTracing;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One trace from two events to the reconcile that covers both, and on to its retry, printed as
 * a tree: an OpenTelemetry SDK (the application's), {@link OpenTelemetryTracing} on a
 * controller, two events on one key (the first from a change another traced system made, with
 * its {@code traceparent}), a reconcile that fails once, and its retry after the back-off.
 *
 * <p>Run: {@code mvn -B -q -pl examples -am -DskipTests package exec:java
 * -Dexec.mainClass=dev.workqueue.examples.TracedController}. It takes a fraction of a second.
 */
public final class TracedController {
  /** The trace context a writer of the object left on it (W3C {@code traceparent}). */
  static final String WRITER_TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  private TracedController() {}

  /**
   * Runs the example and prints the trace to standard output.
   *
   * @param args none
   * @throws InterruptedException if interrupted while waiting for the retry
   */
  public static void main(String[] args) throws InterruptedException {
    run(System.out);
  }

  /**
   * Runs the example, printing to {@code out}.
   *
   * @param out where the trace goes
   * @return the spans, in the order they ended
   * @throws InterruptedException if interrupted while waiting for the retry
   */
  public static List<SpanData> run(PrintStream out) throws InterruptedException {
    Collector spans = new Collector();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider
        .builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build();
    OpenTelemetryTracing tracing = OpenTelemetryTracing.create(sdk);
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch converged = new CountDownLatch(1);
    Controller<String> controller = Controller.<String>builder("configmaps")
        .tracer(tracing)
        .rateLimiter(RateLimiters.exponential(Duration.ofMillis(20), Duration.ofSeconds(1)))
        .reconciler(key -> {
          if (attempts.incrementAndGet() == 1) {
            throw new IllegalStateException("the backend is not ready yet");
          }
          converged.countDown();
          return Result.success();
        }).build();
    // Two informer events on one key before a worker runs: one reconcile covers both.
    event(tracing, controller, "ConfigMap update", "7", WRITER_TRACEPARENT);
    event(tracing, controller, "ConfigMap update", "8", null);
    controller.start();
    boolean done = converged.await(10, TimeUnit.SECONDS);
    controller.close();
    sdk.close();
    print(spans.spans, out);
    if (!done) {
      throw new IllegalStateException("the retry did not come");
    }
    return spans.spans;
  }

  @SuppressWarnings("try") // the span is current inside the block: that is its use
  private static void event(OpenTelemetryTracing tracing, Controller<String> controller,
      String name, String version, String traceparent) {
    Map<String, String> attributes = Map.of("k8s.event", "update", "k8s.namespace.name",
        "default", "k8s.object.name", "app-config", "k8s.object.resource_version", version);
    try (OpenTelemetryTracing.EventSpan span = tracing.startEvent(name, attributes, traceparent)) {
      controller.add("default/app-config"); // the add carries the event's span
    }
  }

  /** Prints each trace as a tree of parents and children, with each span's links. */
  static void print(List<SpanData> spans, PrintStream out) {
    List<SpanData> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparingLong(SpanData::getStartEpochNanos));
    for (SpanData s : sorted) {
      if (sorted.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId()))) {
        out.println("trace " + s.getTraceId()
            + (s.getParentSpanContext().isRemote() ? " (joined from " + s.getParentSpanId()
                + ", the writer's span)" : ""));
        printTree(s, sorted, "  ", out);
      }
    }
  }

  private static void printTree(SpanData s, List<SpanData> all, String indent, PrintStream out) {
    out.println(indent + s.getName() + " [" + s.getSpanId() + "] " + s.getAttributes().asMap()
        .entrySet().stream().map(e -> e.getKey().getKey() + "=" + e.getValue()).sorted()
        .reduce((a, b) -> a + " " + b).orElse("") + " status=" + s.getStatus().getStatusCode());
    for (LinkData link : s.getLinks()) {
      out.println(indent + "  link -> " + link.getSpanContext().getSpanId() + " "
          + link.getAttributes().asMap().entrySet().stream()
              .map(e -> e.getKey().getKey() + "=" + e.getValue()).sorted()
              .reduce((a, b) -> a + " " + b).orElse(""));
    }
    for (SpanData child : all) {
      if (child.getParentSpanId().equals(s.getSpanId())) {
        printTree(child, all, indent + "  ", out);
      }
    }
  }

  /** Keeps every ended span. */
  private static final class Collector implements SpanExporter {
    final List<SpanData> spans = java.util.Collections.synchronizedList(new ArrayList<>());

    @Override
    public CompletableResultCode export(Collection<SpanData> batch) {
      spans.addAll(batch);
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode flush() {
      return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode shutdown() {
      return CompletableResultCode.ofSuccess();
    }
  }
}
