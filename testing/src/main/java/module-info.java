/**
 * Test doubles for code that uses the toolkit: metrics providers that keep every value in
 * memory so that a test can read it back exactly. Depend on it in test scope.
 */
module dev.workqueue.testing {
  requires transitive dev.workqueue;
  // Only RecordingSchedulingMetricsProvider needs it; optional in the pom too.
  requires static transitive dev.workqueue.scheduling;

  exports dev.workqueue.testing;
}
