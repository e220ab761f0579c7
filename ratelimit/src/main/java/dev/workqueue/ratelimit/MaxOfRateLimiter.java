package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.Arrays;

/**
 * The longest delay of several limiters: client-go's {@code MaxOfRateLimiter}. Every limiter
 * is asked on every call, so a token bucket among them always gives up a token, even when a
 * back-off answers longer.
 *
 * <p>Thread-safe if the limiters are. The calls are not atomic as a group: two threads may
 * interleave their calls to the different limiters, which only matters to the order in which
 * they take tokens.
 */
final class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private final RateLimiter<? super T>[] limiters;

  /** {@code limiters} is a non-empty defensive copy without nulls. */
  MaxOfRateLimiter(RateLimiter<? super T>[] limiters) {
    this.limiters = limiters;
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    Duration longest = Duration.ZERO;
    for (RateLimiter<? super T> limiter : limiters) {
      Duration d = limiter.when(item); // every one: a bucket must always take its token
      if (d.compareTo(longest) > 0) {
        longest = d;
      }
    }
    return longest;
  }

  /** Forgets the item in every limiter. */
  @Override
  public void forget(T item) {
    Checks.item(item);
    for (RateLimiter<? super T> limiter : limiters) {
      limiter.forget(item);
    }
  }

  /** The largest count of any limiter. */
  @Override
  public int numRequeues(T item) {
    Checks.item(item);
    int most = 0;
    for (RateLimiter<? super T> limiter : limiters) {
      most = Math.max(most, limiter.numRequeues(item));
    }
    return most;
  }

  @Override
  public String toString() {
    return "MaxOfRateLimiter" + Arrays.toString(limiters);
  }
}
