/**
 * The Micrometer binding of the toolkit's metrics SPI: one
 * {@link dev.workqueue.metrics.micrometer.MicrometerMetricsProvider} gives a
 * {@code MeterRegistry} the work queue, controller and scheduling queue metrics under the
 * names Go controllers export. The core modules do not depend on Micrometer; only this one does.
 */
// micrometer-core is an automatic module (Automatic-Module-Name micrometer.core); transitive,
// as MeterRegistry is part of this module's API.
@SuppressWarnings("requires-transitive-automatic")
module dev.workqueue.micrometer {
  requires transitive dev.workqueue;
  requires transitive dev.workqueue.scheduling; // the provider is also a SchedulingMetricsProvider
  requires transitive micrometer.core;

  exports dev.workqueue.metrics.micrometer;
}
