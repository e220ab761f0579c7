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
   * @param item the item whose attempt failed; not null
   * @return how long to wait before {@code item} is processed again; never negative, and
   *     about 146 years or more means "effectively never"
   * @throws NullPointerException if {@code item} is null
   */
  Duration when(T item);

  /**
   * Stops tracking {@code item}: its next {@link #when} starts again from the beginning. A
   * no-op for items never seen. Overall limiters (a token bucket) ignore it.
   *
   * @param item the item that succeeded or was deleted; not null
   * @throws NullPointerException if {@code item} is null
   */
  void forget(T item);

  /**
   * How many times {@link #when} was called for {@code item} since it was last forgotten.
   * Allocates nothing for an unknown item.
   *
   * @param item the item to look up; not null
   * @return the number of {@code when} calls counted for {@code item}, 0 if it is unknown;
   *     always 0 from limiters that count no attempts (the token buckets)
   * @throws NullPointerException if {@code item} is null
   */
  int numRequeues(T item);
}
