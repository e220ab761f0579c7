package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;

/**
 * A limiter that reshapes the delay of another and leaves its per-item state alone: {@code
 * forget} and {@code numRequeues} go to the inner limiter unchanged. Subclasses implement only
 * {@code when}.
 */
abstract class DelayDecorator<T> implements RateLimiter<T> {
  final RateLimiter<? super T> inner;

  DelayDecorator(RateLimiter<? super T> inner) {
    this.inner = inner;
  }

  @Override
  public final void forget(T item) {
    Checks.item(item);
    inner.forget(item);
  }

  @Override
  public final int numRequeues(T item) {
    Checks.item(item);
    return inner.numRequeues(item);
  }
}
