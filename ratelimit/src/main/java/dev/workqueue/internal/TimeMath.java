package dev.workqueue.internal;

import java.time.Duration;

/**
 * Overflow-safe time arithmetic shared by every module. Not API: exported only to the
 * toolkit's own modules.
 *
 * <p>Times are {@code System.nanoTime()}-style readings: they may be negative and may wrap,
 * so two readings are compared by the sign of their difference, never with {@code <}. That is
 * valid while the readings are less than 2^63 ns apart, which is why every delay is clamped to
 * {@link #MAX_DELAY_NANOS} (about 146 years): a deadline {@code now + delay} then never lands
 * on the wrong side of {@code now}, even when {@code now} is near {@link Long#MAX_VALUE}.
 */
public final class TimeMath {
  /** The longest delay honoured; longer ones are clamped to it ("effectively never"). */
  public static final long MAX_DELAY_NANOS = Long.MAX_VALUE >> 1;

  private TimeMath() {}

  /** {@code d} in nanoseconds, clamped to {@code [Long.MIN_VALUE, Long.MAX_VALUE]}. */
  public static long toNanosSaturated(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  /** {@code d} in nanoseconds, clamped to {@code [0, MAX_DELAY_NANOS]}. */
  public static long delayNanos(Duration d) {
    return clampDelay(toNanosSaturated(d));
  }

  /** {@code nanos} clamped to {@code [0, MAX_DELAY_NANOS]}. */
  public static long clampDelay(long nanos) {
    return nanos <= 0 ? 0 : Math.min(nanos, MAX_DELAY_NANOS);
  }

  /** The deadline {@code delay} after {@code now}; wraps like {@code nanoTime}, see class doc. */
  public static long deadline(long now, long delayNanos) {
    return now + clampDelay(delayNanos);
  }

  /** Whether reading {@code a} is at or after reading {@code b}. */
  public static boolean reached(long now, long deadline) {
    return now - deadline >= 0;
  }

  /** {@code a + b}, saturating at the bounds of {@code long} instead of wrapping. */
  public static long saturatedAdd(long a, long b) {
    long r = a + b;
    // Overflow iff both operands have the same sign and the result's sign differs.
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** {@code a * b} for non-negative operands, saturating at {@link Long#MAX_VALUE}. */
  public static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi != 0 || lo < 0) {
      return Long.MAX_VALUE;
    }
    return lo;
  }

  /** Nanoseconds as seconds, for metrics. */
  public static double toSeconds(long nanos) {
    return nanos / 1e9;
  }
}
