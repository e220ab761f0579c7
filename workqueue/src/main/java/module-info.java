/**
 * The work queues (basic, delaying, rate-limiting, priority, fair), the reconcile-loop runner
 * and the metrics SPI.
 */
module dev.workqueue {
  requires transitive dev.workqueue.ratelimit;
  requires org.slf4j;

  exports dev.workqueue;
  exports dev.workqueue.metrics;
  exports dev.workqueue.controller;
  exports dev.workqueue.trace;
}
