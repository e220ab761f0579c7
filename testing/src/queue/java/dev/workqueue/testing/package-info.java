/**
 * Test doubles for code that uses the toolkit: {@link dev.workqueue.testing.RecordingMetricsProvider}
 * records a work queue's and a controller's metrics, {@link
 * dev.workqueue.testing.RecordingSchedulingMetricsProvider} a scheduling queue's, so that a test
 * can assert on exact values instead of scraping a registry.
 */
package dev.workqueue.testing;
