package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A short delay for the first attempts of an item, then a long one: client-go's
 * {@code ItemFastSlowRateLimiter}. The item's count is incremented first; the call returns
 * {@code fast} while the count is at most {@code maxFastAttempts}, else {@code slow}.
 *
 * <p>Thread-safe; lock-free and allocation-free per call once the item has a counter. The
 * caller must {@code forget} an item once it succeeds, unless the state is bounded (see
 * {@link PerItemLimiterBuilder}).
 */
final class FastSlowRateLimiter<T> implements RateLimiter<T>, TracksItems {
  private final ItemStore<T, AtomicInteger> attempts;
  private final Duration fast;
  private final Duration slow;
  private final int maxFastAttempts;

  /** Arguments are checked by the caller. */
  FastSlowRateLimiter(
      Duration fast, Duration slow, int maxFastAttempts, ItemStore<T, AtomicInteger> attempts) {
    this.fast = fast;
    this.slow = slow;
    this.maxFastAttempts = maxFastAttempts;
    this.attempts = attempts;
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    int count = ItemStore.countAttempt(attempts, item);
    return count <= maxFastAttempts ? fast : slow;
  }

  @Override
  public void forget(T item) {
    Checks.item(item);
    attempts.remove(item);
  }

  @Override
  public int numRequeues(T item) {
    Checks.item(item);
    return ItemStore.attempts(attempts, item);
  }

  @Override
  public long trackedItems() {
    return attempts.size();
  }

  @Override
  public String toString() {
    return "FastSlowRateLimiter{fast=" + fast + ", slow=" + slow
        + ", maxFastAttempts=" + maxFastAttempts + "}";
  }
}
