package dev.workqueue.examples;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;

/**
 * The default controller limiter, {@link RateLimiters#defaultControllerRateLimiter()}, built
 * from its two parts so that every delay it gives can be reported with where it came from:
 * the key's own exponential back-off (5 ms, doubling per failure, at most 1000 s) and the
 * overall token bucket (10 per second after a burst of 100) shared by all keys. The delay is
 * the larger of the two, as {@link RateLimiters#maxOf} gives it; every {@code when} asks both,
 * so the bucket spends a token on every retry.
 *
 * @param <T> the key type
 */
final class ExplainedRateLimiter<T> implements RateLimiter<T> {

  /** Told of each delay, in the thread of the failed reconcile, before the key waits. */
  @FunctionalInterface
  interface Listener<T> {
    /**
     * @param key the key whose reconcile failed
     * @param failures its failures since it was last forgotten, this one included
     * @param delay how long it waits: the larger of the two below
     * @param perKey the key's exponential back-off
     * @param overall the token bucket's wait
     */
    void backOff(T key, int failures, Duration delay, Duration perKey, Duration overall);
  }

  private final RateLimiter<T> perKey =
      RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000));
  private final RateLimiter<T> overall = RateLimiters.tokenBucket(10, 100);
  private final Listener<? super T> listener;

  ExplainedRateLimiter(Listener<? super T> listener) {
    this.listener = listener;
  }

  @Override
  public Duration when(T key) {
    Duration own = perKey.when(key);
    Duration shared = overall.when(key);
    Duration delay = own.compareTo(shared) >= 0 ? own : shared;
    listener.backOff(key, perKey.numRequeues(key), delay, own, shared);
    return delay;
  }

  @Override
  public void forget(T key) {
    perKey.forget(key);
    overall.forget(key);
  }

  @Override
  public int numRequeues(T key) {
    return perKey.numRequeues(key);
  }
}
