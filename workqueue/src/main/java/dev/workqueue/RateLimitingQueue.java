package dev.workqueue;

import dev.workqueue.ratelimit.RateLimiter;

/**
 * A {@link DelayingQueue} that asks a {@link RateLimiter} how long an item must wait before it
 * is retried: client-go's {@code TypedRateLimitingInterface}, the queue a controller uses.
 *
 * <p><b>The caller's duties</b>, in a reconcile loop:
 *
 * <pre>{@code
 * String key = queue.get().orElseThrow();
 * try {
 *   reconcile(key);
 *   queue.forget(key);          // success: reset the key's back-off
 * } catch (Exception e) {
 *   queue.addRateLimited(key);  // failure: retry after the limiter's delay
 * } finally {
 *   queue.done(key);            // always
 * }
 * }</pre>
 *
 * Call {@link #forget} when an item succeeds, or the limiter keeps its per-item state (and its
 * growing back-off) forever, unless the limiter was built bounded. A limiter shared by two
 * queues shares its counters.
 *
 * @param <T> the item type
 */
public interface RateLimitingQueue<T> extends DelayingQueue<T> {

  /**
   * A rate-limiting queue on the default controller limiter (client-go's
   * {@code NewTypedRateLimitingQueue(DefaultTypedControllerRateLimiter())}): exponential 5 ms
   * to 1000 s per item, and 10 per second with bursts of 100 overall.
   */
  static <T> RateLimitingQueue<T> create() {
    return create(dev.workqueue.ratelimit.RateLimiters.defaultControllerRateLimiter());
  }

  /** A rate-limiting queue on {@code limiter}, with the default settings otherwise. */
  static <T> RateLimitingQueue<T> create(RateLimiter<? super T> limiter) {
    return new WorkQueueBuilder<T>().buildRateLimiting(limiter);
  }

  /**
   * Adds {@code item} after the delay the limiter gives it ({@code addAfter(item,
   * limiter.when(item))}); every call counts as a requeue of the item. Ignored after shutdown
   * (the limiter is not asked then).
   *
   * @throws NullPointerException if {@code item} is null
   */
  void addRateLimited(T item);

  /**
   * Tells the limiter to stop tracking {@code item} (its back-off starts over). Does not remove
   * the item from the queue: the caller still calls {@link #done}.
   *
   * @throws NullPointerException if {@code item} is null
   */
  void forget(T item);

  /** How many times {@code item} has been requeued through the limiter since its last forget. */
  int numRequeues(T item);
}
