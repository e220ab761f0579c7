/**
 * The kube-scheduler-style scheduling queue: activeQ, backoffQ and the unschedulable pool,
 * gates, queueing hints and its metrics. Uses the toolkit's clock and metrics SPI, none of
 * the work queues.
 */
module dev.workqueue.scheduling {
  requires transitive dev.workqueue;
  requires org.slf4j;

  exports dev.workqueue.scheduling;
}
