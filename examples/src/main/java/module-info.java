/** Runnable examples; a named module so that they can only use the exported API. */
module dev.workqueue.examples {
  requires dev.workqueue;
  requires dev.workqueue.micrometer;
  requires micrometer.registry.prometheus;
  requires jdk.httpserver;

  exports dev.workqueue.examples;
}
