package dev.workqueue.ratelimit;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.function.DoubleSupplier;

/**
 * Spreads the delays of another limiter with a random factor, so that items that failed
 * together do not all come back at the same instant. Not in client-go.
 *
 * <p>With {@code r} drawn from the random source in {@code [0, 1)} and {@code d} the inner
 * delay:
 *
 * <ul>
 *   <li>full jitter: {@code d * r}, anywhere from zero up to {@code d};
 *   <li>proportional jitter: {@code d + d * maxFactor * r}, never shorter than {@code d}
 *       (Kubernetes' {@code wait.Jitter}).
 * </ul>
 *
 * <p>Values outside {@code [0, 1]} from the random source (and NaN) are clamped into it, so
 * a delay is never negative. Results saturate at {@code TimeMath.MAX_DELAY_NANOS}. A zero
 * delay stays zero without drawing a number.
 *
 * <p>Thread-safe if the inner limiter and the random source are.
 */
final class JitterRateLimiter<T> extends DelayDecorator<T> {
  private final boolean keepInnerDelay;
  private final double spread;
  private final DoubleSupplier random;

  /**
   * @param keepInnerDelay true for proportional jitter (add to {@code d}), false for full
   *     jitter (replace {@code d})
   * @param spread the fraction of {@code d} that {@code r = 1} would add or give
   */
  JitterRateLimiter(
      RateLimiter<? super T> inner, boolean keepInnerDelay, double spread, DoubleSupplier random) {
    super(inner);
    this.keepInnerDelay = keepInnerDelay;
    this.spread = spread;
    this.random = random;
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    Duration d = inner.when(item);
    long nanos = TimeMath.delayNanos(d);
    if (nanos == 0) {
      return d;
    }
    double r = random.getAsDouble();
    if (!(r >= 0)) {
      r = 0; // also NaN
    } else if (r > 1) {
      r = 1;
    }
    long part = (long) (nanos * spread * r); // a double cast to long saturates
    long jittered = keepInnerDelay ? TimeMath.saturatedAdd(nanos, part) : part;
    return Duration.ofNanos(TimeMath.clampDelay(jittered));
  }

  @Override
  public String toString() {
    return (keepInnerDelay ? "ProportionalJitter{maxFactor=" + spread + ", " : "FullJitter{")
        + "inner=" + inner + "}";
  }
}
