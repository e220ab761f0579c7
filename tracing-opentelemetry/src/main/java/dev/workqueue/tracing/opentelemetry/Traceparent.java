package dev.workqueue.tracing.opentelemetry;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;

/** A W3C {@code traceparent} value read with OpenTelemetry's own propagator. */
final class Traceparent {
  private static final String HEADER = "traceparent";

  private static final TextMapGetter<String> ONE_VALUE = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(String carrier) {
      return List.of(HEADER);
    }

    @Override
    public String get(String carrier, String key) {
      return HEADER.equals(key) ? carrier : null;
    }
  };

  private Traceparent() {}

  /** The remote span context {@code value} names, or null if it is null or invalid. */
  static SpanContext parse(String value) {
    if (value == null || value.isBlank()) {
      return null;
    }
    Context extracted = W3CTraceContextPropagator.getInstance()
        .extract(Context.root(), value.trim(), ONE_VALUE);
    SpanContext sc = io.opentelemetry.api.trace.Span.fromContext(extracted).getSpanContext();
    return sc.isValid() ? sc : null;
  }
}
