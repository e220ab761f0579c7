/**
 * Rate limiters ({@code RateLimiter<T>} and its family) and the injectable time source
 * ({@link dev.workqueue.clock.Clock}, {@link dev.workqueue.clock.FakeClock}) that every
 * component of the toolkit reads time through.
 */
@SuppressWarnings("module") // the modules it exports to are built after it
module dev.workqueue.ratelimit {
  requires org.slf4j;
  requires com.github.benmanes.caffeine;

  exports dev.workqueue.clock;
  exports dev.workqueue.ratelimit;
  exports dev.workqueue.internal to dev.workqueue, dev.workqueue.scheduling, dev.workqueue.micrometer;
}
