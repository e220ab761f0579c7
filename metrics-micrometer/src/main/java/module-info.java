/**
 * The Micrometer binding of the toolkit's metrics SPI: one
 * {@link dev.workqueue.metrics.micrometer.MicrometerMetricsProvider} gives a
 * {@code MeterRegistry} the work queue, controller and scheduling queue metrics under the
 * names Go controllers export. The core modules do not depend on Micrometer; only this one does.
 */
module dev.workqueue.micrometer {
  requires transitive dev.workqueue;
  requires transitive micrometer.core;

  exports dev.workqueue.metrics.micrometer;
}
