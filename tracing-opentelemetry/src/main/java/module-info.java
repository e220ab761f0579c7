/**
 * The OpenTelemetry binding of the toolkit's tracing SPI: {@link
 * dev.workqueue.tracing.opentelemetry.OpenTelemetryTracing} makes a span per reconcile, linked
 * to the spans that were current at each add it covers, and a span per informer event. Only
 * {@code opentelemetry-api} is needed; the application brings the SDK. The core modules do not
 * depend on OpenTelemetry.
 */
// The OpenTelemetry jars are automatic modules; transitive, as OpenTelemetry is part of the API.
@SuppressWarnings("requires-transitive-automatic")
module dev.workqueue.tracing.opentelemetry {
  requires transitive dev.workqueue;
  requires transitive io.opentelemetry.api;
  requires transitive io.opentelemetry.context;

  exports dev.workqueue.tracing.opentelemetry;
}
