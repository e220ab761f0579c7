package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;
import java.time.Duration;

/**
 * Caps the delay of another limiter: client-go's {@code WithMaxWaitRateLimiter}, returning
 * {@code min(inner.when(item), maxWait)}. The inner limiter is still asked (and still counts
 * the attempt or takes its token).
 *
 * <p>Thread-safe if the inner limiter is.
 */
final class MaxWaitRateLimiter<T> extends DelayDecorator<T> {
  private final Duration maxWait;

  /** Arguments are checked by the caller. */
  MaxWaitRateLimiter(RateLimiter<? super T> inner, Duration maxWait) {
    super(inner);
    this.maxWait = maxWait;
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    Duration d = inner.when(item);
    return d.compareTo(maxWait) > 0 ? maxWait : d;
  }

  @Override
  public String toString() {
    return "MaxWaitRateLimiter{maxWait=" + maxWait + ", inner=" + inner + "}";
  }
}
