package dev.workqueue.internal;

import java.time.Duration;

/**
 * The toolkit's one set of argument checks: each failure is thrown at the call that brought
 * the bad argument, and its message names the argument and, where it helps, the value. Not
 * API: exported to the toolkit's own modules only.
 */
public final class Checks {
  private Checks() {}

  /** {@code value}, or a {@link NullPointerException} saying {@code "<name> must not be null"}. */
  public static <X> X nonNull(X value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }

  /** The check every queue and limiter makes of an item first. */
  public static <T> T item(T item) {
    return nonNull(item, "item");
  }

  /** {@code d}, unless it is null or negative. */
  public static Duration nonNegative(Duration d, String name) {
    nonNull(d, name);
    if (d.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + d);
    }
    return d;
  }

  /** {@code d}, unless it is null, zero or negative. */
  public static Duration positive(Duration d, String name) {
    nonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }

  /** {@code value}, unless it is negative. */
  public static int nonNegative(int value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
    return value;
  }

  /** {@code value}, unless it is zero or negative. */
  public static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** A rate in events per second: zero or more, {@code +Infinity} for no limit. */
  public static double qps(double qps) {
    if (Double.isNaN(qps) || qps < 0) {
      throw new IllegalArgumentException(
          "qps must be zero or more (Double.POSITIVE_INFINITY for no limit), was " + qps);
    }
    return qps;
  }

  /** A finite factor of zero or more. */
  public static double factor(double factor, String name) {
    if (!(factor >= 0) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException(
          name + " must be a finite number of zero or more, was " + factor);
    }
    return factor;
  }
}
