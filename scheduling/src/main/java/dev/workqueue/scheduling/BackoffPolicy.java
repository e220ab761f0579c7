package dev.workqueue.scheduling;

import dev.workqueue.internal.TimeMath;

/**
 * The back-off arithmetic, apart from any queue: duration from the failure counts, expiry,
 * the 1 s window alignment, and when the flush should next look at an item.
 *
 * <p>Window boundaries are {@code origin + k * window} where {@code origin} is the clock
 * reading when the queue was built, so alignment stays regular even when readings wrap
 * around {@link Long#MAX_VALUE} (within 2^63 ns of the origin, about 292 years).
 */
final class BackoffPolicy {
  static final long SECOND = 1_000_000_000L;

  final long initialNanos;
  final long maxNanos;
  final boolean aligned;
  final long windowNanos;
  final long origin;

  BackoffPolicy(long initialNanos, long maxNanos, boolean aligned, long windowNanos, long origin) {
    this.initialNanos = initialNanos;
    this.maxNanos = maxNanos;
    this.aligned = aligned;
    this.windowNanos = windowNanos;
    this.origin = origin;
  }

  /**
   * {@code initial * 2^(count-1)} capped at max, where count is the consecutive errors if any,
   * else the unschedulable count; 0 when count is 0. Never overflows.
   */
  long duration(QueuedItemInfo<?, ?> info) {
    int count = info.consecutiveErrors > 0 ? info.consecutiveErrors : info.unschedulableCount;
    return duration(count);
  }

  long duration(int count) {
    if (count <= 0) {
      return 0;
    }
    int shift = count - 1;
    if (shift >= 63 || initialNanos > (maxNanos >> shift)) {
      return maxNanos;
    }
    return Math.min(initialNanos << shift, maxNanos);
  }

  /** The item's back-off expiry (aligned when alignment is on), computed once per failure. */
  long expiry(QueuedItemInfo<?, ?> info) {
    if (!info.hasBackoffExpiry) {
      info.backoffExpiry = align(TimeMath.deadline(info.timestamp, duration(info)));
      info.hasBackoffExpiry = true;
    }
    return info.backoffExpiry;
  }

  /** {@code t} truncated to the start of its window, or {@code t} when alignment is off. */
  long align(long t) {
    return aligned ? floorToGrid(t, windowNanos) : t;
  }

  /**
   * Whether the item must still wait at {@code now}. With alignment, an item whose expiry
   * window is the current window is still backing off.
   */
  boolean isBackingOff(QueuedItemInfo<?, ?> info, long now) {
    if (duration(info) == 0) {
      return false;
    }
    long expiry = expiry(info);
    return aligned ? expiry - align(now) >= 0 : expiry - now > 0;
  }

  /** The first reading at which {@link #isBackingOff} turns false. */
  long dueTime(QueuedItemInfo<?, ?> info) {
    if (duration(info) == 0) {
      return info.timestamp;
    }
    long expiry = expiry(info);
    return aligned ? expiry + windowNanos : expiry;
  }

  /** The start of the grid cell holding {@code t}; grid lines at {@code origin + k * step}. */
  long floorToGrid(long t, long step) {
    return t - Math.floorMod(t - origin, step);
  }

  /** The first grid line at or after {@code t}. */
  long ceilToGrid(long t, long step) {
    long floor = floorToGrid(t, step);
    return floor == t ? t : floor + step;
  }

  /** The first grid line strictly after {@code t}. */
  long nextGridLine(long t, long step) {
    return floorToGrid(t, step) + step;
  }
}
