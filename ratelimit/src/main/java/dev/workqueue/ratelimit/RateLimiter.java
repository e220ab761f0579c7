package dev.workqueue.ratelimit;

import java.time.Duration;

/**
 * Decides how long an item must wait before it is processed again: client-go's
 * {@code TypedRateLimiter}. A rate-limiting queue asks {@link #when} on every failed attempt
 * and waits that long before handing the item out again.
 *
 * <p>Implementations are thread-safe. Per-item limiters keep state for every item they have
 * seen until {@link #forget} is called for it (or, if built bounded, until it is evicted):
 * callers must {@code forget} an item once it succeeds.
 *
 * @param <T> the item type; items are compared with {@code equals}/{@code hashCode}
 */
public interface RateLimiter<T> {

  /**
   * Records one more attempt for {@code item} and returns how long to wait before it. Never
   * negative.
   *
   * @throws NullPointerException if {@code item} is null
   */
  Duration when(T item);

  /**
   * Stops tracking {@code item}: its next {@link #when} starts again from the beginning. A
   * no-op for items never seen. Overall limiters (a token bucket) ignore it.
   */
  void forget(T item);

  /**
   * How many times {@link #when} was called for {@code item} since it was last forgotten.
   * Allocates nothing for an unknown item.
   */
  int numRequeues(T item);
}
