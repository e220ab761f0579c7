/**
 * The work queues (basic, delaying, rate-limiting, priority), the scheduling queue, the
 * reconcile-loop runner and the metrics SPI.
 */
module dev.workqueue {
  requires transitive dev.workqueue.ratelimit;
  requires org.slf4j;
  requires com.github.benmanes.caffeine;

  exports dev.workqueue;
  exports dev.workqueue.metrics;
  exports dev.workqueue.scheduling;
}
