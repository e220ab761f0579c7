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
   *
   * @param <T> the item type
   * @return a new, empty queue with a limiter of its own
   */
  static <T> RateLimitingQueue<T> create() {
    return create(dev.workqueue.ratelimit.RateLimiters.defaultControllerRateLimiter());
  }

  /**
   * A rate-limiting queue on {@code limiter}, with the default settings otherwise.
   *
   * @param <T> the item type
   * @param limiter gives each retry's delay; shared with whatever else uses it
   * @return a new, empty queue
   * @throws NullPointerException if {@code limiter} is null
   */
  static <T> RateLimitingQueue<T> create(RateLimiter<? super T> limiter) {
    return new WorkQueueBuilder<T>().buildRateLimiting(limiter);
  }

  /**
   * Adds {@code item} after the delay the limiter gives it ({@code addAfter(item,
   * limiter.when(item))}); every call counts as a requeue of the item. Ignored after shutdown
   * (the limiter is not asked then).
   *
   * @param item the item to retry, usually one whose processing just failed
   * @throws NullPointerException if {@code item} is null
   */
  void addRateLimited(T item);

  /**
   * Tells the limiter to stop tracking {@code item} (its back-off starts over). Does not remove
   * the item from the queue: the caller still calls {@link #done}.
   *
   * @param item the item that succeeded
   * @throws NullPointerException if {@code item} is null
   */
  void forget(T item);

  /**
   * How many times {@code item} has been requeued through the limiter since its last forget.
   *
   * @param item the item to look up
   * @return the limiter's count of delays given for {@code item} (its
   *     {@link RateLimiter#numRequeues}); 0 for an item never requeued or since forgotten
   * @throws NullPointerException if {@code item} is null
   */
  int numRequeues(T item);
}
