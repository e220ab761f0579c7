package dev.workqueue.ratelimit;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;

/** Argument checks shared by the factories: each failure names the argument. */
final class Args {
  private Args() {}

  static <X> X nonNull(X value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }

  static Duration nonNegative(Duration d, String name) {
    return TimeMath.requireNonNegative(d, name);
  }

  static Duration positive(Duration d, String name) {
    nonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }

  static int nonNegative(int value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, was " + value);
    }
    return value;
  }

  static long positive(long value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
    return value;
  }

  /** A rate in events per second: zero or more, {@code +Infinity} for no limit. */
  static double qps(double qps) {
    if (Double.isNaN(qps) || qps < 0) {
      throw new IllegalArgumentException(
          "qps must be zero or more (Double.POSITIVE_INFINITY for no limit), was " + qps);
    }
    return qps;
  }

  /** A finite factor of zero or more. */
  static double factor(double factor, String name) {
    if (!(factor >= 0) || Double.isInfinite(factor)) {
      throw new IllegalArgumentException(
          name + " must be a finite number of zero or more, was " + factor);
    }
    return factor;
  }

  /** The check every {@code when} makes first. */
  static <T> T item(T item) {
    if (item == null) {
      throw new NullPointerException("item must not be null");
    }
    return item;
  }
}
