package dev.workqueue.ratelimit;

import java.time.Duration;

/**
 * A short delay for the first attempts of an item, then a long one: client-go's
 * {@code ItemFastSlowRateLimiter}. The item's count is incremented first; the call returns
 * {@code fast} while the count is at most {@code maxFastAttempts}, else {@code slow}.
 *
 * <p>Thread-safe; allocates nothing per call for counts up to 127. The caller must
 * {@code forget} an item once it succeeds, unless the state is bounded (see
 * {@link PerItemLimiterBuilder}).
 */
final class FastSlowRateLimiter<T> implements RateLimiter<T>, TracksItems {
  private final ItemStore<T, Integer> attempts;
  private final Duration fast;
  private final Duration slow;
  private final int maxFastAttempts;

  /** Arguments are checked by the caller. */
  FastSlowRateLimiter(
      Duration fast, Duration slow, int maxFastAttempts, ItemStore<T, Integer> attempts) {
    this.fast = fast;
    this.slow = slow;
    this.maxFastAttempts = maxFastAttempts;
    this.attempts = attempts;
  }

  @Override
  public Duration when(T item) {
    Args.item(item);
    int count = attempts.compute(item, ItemStore.INCREMENT);
    return count <= maxFastAttempts ? fast : slow;
  }

  @Override
  public void forget(T item) {
    Args.item(item);
    attempts.remove(item);
  }

  @Override
  public int numRequeues(T item) {
    Args.item(item);
    Integer count = attempts.peek(item);
    return count == null ? 0 : count;
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
