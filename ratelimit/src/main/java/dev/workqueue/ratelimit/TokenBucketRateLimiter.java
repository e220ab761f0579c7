package dev.workqueue.ratelimit;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * One token bucket for all items: client-go's {@code BucketRateLimiter} over Go's
 * {@code rate.Limiter}, with {@code Reserve().Delay()} semantics. See the essay below.
 *
 * <p>Thread-safe and lock-free: one compare-and-set on one {@code long} per call; allocates
 * nothing but the returned {@code Duration} (none at all when the answer is zero).
 */
final class TokenBucketRateLimiter<T> implements RateLimiter<T> {

  /*
   * How does the bucket work, and why is it one long?
   * ================================================
   *
   * Go's rate.Limiter keeps a number of tokens (a float) and the time it last looked. The
   * bucket starts full with `burst` tokens and gains `qps` tokens a second, never more than
   * `burst`. A reservation takes one token *now*, even if there is none: the count may go
   * negative, and the caller is told how long until the count is back at zero, i.e. until
   * "its" token has been earned. Callers that come later therefore queue up behind earlier
   * ones: the second caller in debt waits two intervals, the third three, and so on. Nothing
   * blocks here; the rate-limiting queue simply holds the item back for the returned delay.
   *
   * We keep the same arithmetic but store it differently. Let
   *
   *     interval = 1 s / qps          (the time to earn one token)
   *     window   = burst * interval   (the time to fill an empty bucket)
   *
   * and store one clock reading, `fullAt`: the moment at which the bucket will be full again
   * if nobody takes anything. Everything else follows from it at any time `now`:
   *
   *     debt   = max(0, fullAt - now)            (time still needed to refill)
   *     tokens = (window - debt) / interval      (may be negative)
   *
   * Taking a token adds one interval of debt. The caller must wait until the tokens are back
   * to zero, i.e. until the debt has shrunk to one window:
   *
   *     newDebt = debt + interval
   *     fullAt  = now + newDebt
   *     wait    = max(0, newDebt - window)
   *
   * A worked example: qps = 10 (interval 100 ms), burst = 3 (window 300 ms). The bucket is
   * made at t = 0 with fullAt = 0: debt 0, tokens 3.
   *
   *     t (ms)  call  debt before  debt after  fullAt  tokens after  wait
   *        0     1         0          100        100        2          0
   *        0     2       100          200        200        1          0
   *        0     3       200          300        300        0          0
   *        0     4       300          400        400       -1        100 ms
   *        0     5       400          500        500       -2        200 ms
   *      250     6       250          350        600     -0.5         50 ms
   *     1000     7         0          100       1100        2          0
   *
   * The same on the clock's timeline: a caller's token exists at fullAt - window, the moment
   * its debt has shrunk to one window.
   *
   *     0         100       200       300       400       500       600 (ms)
   *     |---------|---------|---------|---------|---------|---------|
   *     calls 1-3 move fullAt 0 -> 300 (one window): bucket empty, nobody waits
   *     call 4 (t=0)   moves fullAt to 400, its token exists at 100: wait 100 ms
   *     call 5 (t=0)   moves fullAt to 500, its token exists at 200: wait 200 ms
   *     call 6 (t=250) moves fullAt to 600, its token exists at 300: wait  50 ms
   *
   * Call 6 is exactly Go's answer: at t = 250 the float count is -2 + 2.5 = 0.5; taking one
   * leaves -0.5, i.e. half an interval to wait. Call 7 shows the cap: after a long pause the
   * debt is simply zero, which is "full"; refill beyond `burst` cannot happen, because a debt
   * is never negative.
   *
   * Why one long: the whole state is a single number, so a reservation is one read of the
   * clock, a few additions and one compare-and-set. No lock, no allocation, and concurrent
   * callers are ordered by the CAS exactly as Go orders them by its mutex: fifteen threads at
   * the same instant on a bucket of burst 5 get five zero waits and ten growing ones.
   *
   * Time going backwards (a FakeClock set back, a broken clock) earns no tokens: `fullAt` is
   * a point on the clock's timeline and only the clock passing it refills the bucket. The
   * wait is measured to the same point, so a caller whose clock went back waits longer by the
   * amount it went back, and the token still becomes available at the same reading.
   *
   * Saturation, not overflow: readings are compared by difference (they may wrap past
   * Long.MAX_VALUE), `interval` and `window` are clamped to TimeMath.MAX_DELAY_NANOS (146
   * years: "effectively never"), and the debt is capped at window + MAX_DELAY_NANOS, so every
   * difference stays far below 2^63 and a wait is never more than MAX_DELAY_NANOS. The
   * interval is rounded to a whole nanosecond (a rate above 2e9 per second is unlimited).
   *
   * The corner cases follow Go: qps = +Infinity never waits (whatever the burst); burst = 0
   * with a finite rate can never hold the one token a call needs, so it answers "never"
   * without taking anything; qps = 0 lets the first `burst` calls through free and then
   * answers "never".
   */

  private static final VarHandle FULL_AT;
  private static final VarHandle ALLOWANCE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      FULL_AT = lookup.findVarHandle(TokenBucketRateLimiter.class, "fullAt", long.class);
      ALLOWANCE = lookup.findVarHandle(TokenBucketRateLimiter.class, "allowance", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The answer for a token that will never exist. */
  static final Duration NEVER = Duration.ofNanos(TimeMath.MAX_DELAY_NANOS);

  private enum Mode { UNLIMITED, BUCKET, ALLOWANCE_ONLY, NEVER }

  private final Clock clock;
  private final double qps;
  private final int burst;
  private final Mode mode;
  private final long intervalNanos;
  private final long windowNanos;
  private final long maxDebtNanos;

  /** The reading at which the bucket is full again (mode BUCKET). */
  @SuppressWarnings("unused") // through FULL_AT
  private volatile long fullAt;

  /** Free calls left (mode ALLOWANCE_ONLY, qps = 0). */
  @SuppressWarnings("unused") // through ALLOWANCE
  private volatile long allowance;

  /** Arguments are checked by the caller. */
  TokenBucketRateLimiter(double qps, int burst, Clock clock) {
    this.clock = clock;
    this.qps = qps;
    this.burst = burst;
    double exactInterval = 1e9 / qps; // +Infinity for qps 0, 0 for qps +Infinity
    long interval = TimeMath.clampDelay(Math.round(Math.min(exactInterval, Long.MAX_VALUE)));
    if (qps == 0) {
      mode = burst == 0 ? Mode.NEVER : Mode.ALLOWANCE_ONLY;
    } else if (interval == 0) {
      mode = Mode.UNLIMITED;
    } else if (burst == 0) {
      mode = Mode.NEVER;
    } else {
      mode = Mode.BUCKET;
    }
    this.intervalNanos = interval;
    this.windowNanos = TimeMath.clampDelay(TimeMath.saturatedMultiply(burst, interval));
    this.maxDebtNanos = windowNanos + TimeMath.MAX_DELAY_NANOS;
    this.allowance = burst;
    this.fullAt = mode == Mode.BUCKET ? clock.nanoTime() : 0;
  }

  @Override
  public Duration when(T item) {
    Checks.item(item);
    return reserve();
  }

  /** Takes one token now and returns how long until it exists. */
  Duration reserve() {
    Mode m = mode;
    if (m == Mode.BUCKET) {
      return reserveFromBucket();
    } else if (m == Mode.UNLIMITED) {
      return Duration.ZERO;
    } else if (m == Mode.ALLOWANCE_ONLY) {
      return takeAllowance();
    }
    return NEVER;
  }

  private Duration reserveFromBucket() {
    long now = clock.nanoTime();
    while (true) {
      long full = (long) FULL_AT.getVolatile(this);
      long debt = full - now;
      if (debt < 0) {
        debt = 0;
      }
      long newDebt = Math.min(TimeMath.saturatedAdd(debt, intervalNanos), maxDebtNanos);
      if (FULL_AT.compareAndSet(this, full, now + newDebt)) {
        long wait = newDebt - windowNanos;
        return wait <= 0 ? Duration.ZERO : Duration.ofNanos(wait);
      }
    }
  }

  private Duration takeAllowance() {
    while (true) {
      long left = (long) ALLOWANCE.getVolatile(this);
      if (left <= 0) {
        return NEVER;
      }
      if (ALLOWANCE.compareAndSet(this, left, left - 1)) {
        return Duration.ZERO;
      }
    }
  }

  /** A no-op: the bucket is shared by all items. */
  @Override
  public void forget(T item) {
    Checks.item(item);
  }

  /** Always 0: the bucket does not count per item. */
  @Override
  public int numRequeues(T item) {
    Checks.item(item);
    return 0;
  }

  @Override
  public String toString() {
    return "TokenBucketRateLimiter{qps=" + qps + ", burst=" + burst + "}";
  }
}
