package dev.workqueue.ratelimit;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.function.Function;

/**
 * A token bucket per item, made on the item's first {@code when} and dropped by
 * {@code forget}: client-go's short-lived {@code ItemBucketRateLimiter} (2020, reverted).
 * Each bucket behaves exactly like {@link TokenBucketRateLimiter}.
 *
 * <p>Expiry after inactivity loses nothing once the inactivity is at least
 * {@code burst / qps}: by then the item's bucket would be full again anyway.
 *
 * <p>Thread-safe. {@code numRequeues} is always 0, as in client-go. The caller must
 * {@code forget} an item it is done with, unless the state is bounded (see
 * {@link PerItemLimiterBuilder}).
 */
final class PerItemTokenBucketRateLimiter<T> implements RateLimiter<T>, TracksItems {
  private final ItemStore<T, TokenBucketRateLimiter<?>> buckets;
  private final double qps;
  private final int burst;
  /** Made once, so a call for a known item allocates no lambda. */
  private final Function<Object, TokenBucketRateLimiter<?>> newBucket;

  /** Arguments are checked by the caller. */
  PerItemTokenBucketRateLimiter(
      double qps, int burst, Clock clock, ItemStore<T, TokenBucketRateLimiter<?>> buckets) {
    this.qps = qps;
    this.burst = burst;
    this.buckets = buckets;
    this.newBucket = item -> new TokenBucketRateLimiter<>(qps, burst, clock);
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    return buckets.computeIfAbsent(item, newBucket).reserve();
  }

  /** Drops the item's bucket: its next {@code when} starts with a full one. */
  @Override
  public void forget(T item) {
    Checks.item(item);
    buckets.remove(item);
  }

  /** Always 0: a bucket counts tokens, not attempts (as in client-go). */
  @Override
  public int numRequeues(T item) {
    Checks.item(item);
    return 0;
  }

  @Override
  public long trackedItems() {
    return buckets.size();
  }

  @Override
  public String toString() {
    return "PerItemTokenBucketRateLimiter{qps=" + qps + ", burst=" + burst + "}";
  }
}
