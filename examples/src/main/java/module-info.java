/** Runnable examples; a named module so that they can only use the exported API. */
module dev.workqueue.examples {
  // transitive: the examples' public methods take and return toolkit types (Clock, FakeClock).
  // The fabric8 jars of ConfigMapController are not required here: they name no module, so
  // they stay on the class path (see the compiler configuration in examples/pom.xml).
  requires transitive dev.workqueue;
  requires dev.workqueue.scheduling;
  requires dev.workqueue.testing; // the demos' summaries read the recording providers
  requires dev.workqueue.kubernetes; // ConfigMapController (an automatic module)
  // EmbeddedApiServer: the mock API server fixture (an automatic module)
  requires dev.workqueue.kubernetes.testing;
  requires dev.workqueue.micrometer;
  requires dev.workqueue.tracing.opentelemetry; // TracedController
  requires io.opentelemetry.sdk;
  requires io.opentelemetry.sdk.trace;
  requires io.opentelemetry.sdk.common;
  requires micrometer.registry.prometheus;
  requires jdk.httpserver;
  requires com.github.benmanes.caffeine; // the pool scheduler's reservations (a TTL cache)

  exports dev.workqueue.examples;
  exports dev.workqueue.examples.pool;
}
