/**
 * {@link dev.workqueue.metrics.micrometer.MicrometerMetricsProvider}: the toolkit's metrics on a
 * Micrometer {@code MeterRegistry} (Spring Boot, Quarkus, Micronaut, or a plain
 * {@code PrometheusMeterRegistry}).
 */
package dev.workqueue.metrics.micrometer;
