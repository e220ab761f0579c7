package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Back-off per item: {@code base * 2^n}, capped at {@code max}, where {@code n} counts the
 * item's earlier calls since it was last forgotten. client-go's
 * {@code ItemExponentialFailureRateLimiter}.
 *
 * <p>The delays are computed once, at construction, into a short table ending at the cap
 * (at most 64 entries, since doubling a positive number of nanoseconds reaches any
 * {@code long} within 63 steps). A call is then one increment of the item's own counter (a
 * lock-free map read and a CAS) and one array read: no multiplication that could overflow, no
 * {@code pow}, and no allocation once the item has a counter (the table holds the
 * {@code Duration}s).
 * The 64th and the 10,000th call return {@code max} itself; the count saturates at
 * {@link Integer#MAX_VALUE} instead of wrapping.
 *
 * <p>Thread-safe: the count of one item is updated atomically, so concurrent failures of
 * the same item get successive delays, and failures of different items do not contend. The caller must {@code forget} an item once it
 * succeeds, unless the state is bounded (see {@link PerItemLimiterBuilder}).
 */
final class ExponentialFailureRateLimiter<T> implements RateLimiter<T>, TracksItems {
  private final ItemStore<T, AtomicInteger> failures;
  private final Duration base;
  private final Duration max;
  /** {@code steps[n]} is the delay after {@code n} earlier calls; the last entry repeats. */
  private final Duration[] steps;

  /** Arguments are checked by the caller. */
  ExponentialFailureRateLimiter(
      Duration base, Duration max, ItemStore<T, AtomicInteger> failures) {
    this.base = base;
    this.max = max;
    this.failures = failures;
    this.steps = steps(base, max);
  }

  static Duration[] steps(Duration base, Duration max) {
    long maxNanos = TimeMath.toNanosSaturated(max);
    long delay = TimeMath.toNanosSaturated(base);
    List<Duration> steps = new ArrayList<>();
    while (true) {
      if (delay >= maxNanos) {
        steps.add(max);
        break;
      }
      steps.add(Duration.ofNanos(delay));
      if (delay == 0) {
        break; // base 0: 0 * 2^n is 0 forever
      }
      delay = TimeMath.saturatedMultiply(delay, 2);
    }
    return steps.toArray(new Duration[0]);
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    int earlier = ItemStore.countAttempt(failures, item) - 1;
    Duration[] table = steps;
    return table[Math.min(earlier, table.length - 1)];
  }

  @Override
  public void forget(T item) {
    Checks.item(item);
    failures.remove(item);
  }

  @Override
  public int numRequeues(T item) {
    Checks.item(item);
    return ItemStore.attempts(failures, item);
  }

  @Override
  public long trackedItems() {
    return failures.size();
  }

  @Override
  public String toString() {
    return "ExponentialFailureRateLimiter{base=" + base + ", max=" + max + "}";
  }
}
