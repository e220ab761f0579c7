package dev.workqueue;

import static dev.workqueue.Items.requireItem;

import dev.workqueue.ratelimit.RateLimiter;

/** The rate-limiting layer: a delaying queue that asks its limiter for each delay. */
final class DefaultRateLimitingQueue<T> extends DefaultDelayingQueue<T>
    implements RateLimitingQueue<T> {
  private final RateLimiter<? super T> limiter;

  DefaultRateLimitingQueue(WorkQueueBuilder<T> b, RateLimiter<? super T> limiter) {
    super(b);
    this.limiter = limiter;
  }

  @Override
  public void addRateLimited(T item) {
    requireItem(item);
    if (shuttingDown) {
      return; // do not count a requeue the queue will ignore
    }
    addAfter(item, limiter.when(item));
  }

  @Override
  public void forget(T item) {
    limiter.forget(requireItem(item));
  }

  @Override
  public int numRequeues(T item) {
    return limiter.numRequeues(requireItem(item));
  }
}
