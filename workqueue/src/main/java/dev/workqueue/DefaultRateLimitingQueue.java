package dev.workqueue;

import dev.workqueue.internal.Checks;
import dev.workqueue.ratelimit.RateLimiter;
import java.time.Duration;

/** The rate-limiting queue: a delaying queue that asks its limiter for each retry's delay. */
class DefaultRateLimitingQueue<T> extends DefaultDelayingQueue<T>
    implements RateLimitingQueue<T> {
  final RateLimiter<? super T> limiter;

  DefaultRateLimitingQueue(WorkQueueBuilder<T> b, RateLimiter<? super T> limiter) {
    this(b, limiter, false);
  }

  DefaultRateLimitingQueue(WorkQueueBuilder<T> b, RateLimiter<? super T> limiter,
      boolean priority) {
    super(b, priority);
    this.limiter = limiter;
  }

  @Override
  public void addRateLimited(T item) {
    Checks.item(item);
    if (engine.isShuttingDown()) {
      return; // do not count a requeue the queue will ignore
    }
    addAfter(item, limiter.when(item));
  }

  /** The limiter's delay for {@code item}, clamped; the caller checked shutdown. */
  final long limiterDelay(T item) {
    Duration d = limiter.when(item);
    return delay(d);
  }

  @Override
  public void forget(T item) {
    limiter.forget(Checks.item(item));
  }

  @Override
  public int numRequeues(T item) {
    return limiter.numRequeues(Checks.item(item));
  }
}
