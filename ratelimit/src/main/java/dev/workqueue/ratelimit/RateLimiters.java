package dev.workqueue.ratelimit;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * The rate limiters: client-go's {@code workqueue} family under recognisable names, and the
 * additions (bounded per-item state, jitter, a per-item token bucket).
 *
 * <p>Every limiter made here is thread-safe. Per-item limiters (exponential, fast-slow,
 * per-item token bucket, and any composition holding one) keep state for each item until
 * {@link RateLimiter#forget} is called for it: <b>the caller must {@code forget} an item once
 * it succeeds</b> (or is deleted), or build the limiter with bounds through the
 * {@code ...Builder} factories and {@link PerItemLimiterBuilder}.
 *
 * <p>Arguments are checked here, at construction: a null fails with a
 * {@link NullPointerException} and an out-of-range value with an
 * {@link IllegalArgumentException}, each naming the argument. Delays beyond
 * about 146 years are treated as "effectively never".
 *
 * <pre>{@code
 * RateLimiter<String> limiter = RateLimiters.maxOf(
 *     RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)),
 *     RateLimiters.tokenBucket(10, 100));
 * }</pre>
 */
public final class RateLimiters {
  /** The default random source of the jitter decorators. */
  private static final DoubleSupplier THREAD_LOCAL_RANDOM =
      () -> ThreadLocalRandom.current().nextDouble();

  private RateLimiters() {}

  // ---- overall ---------------------------------------------------------------------------

  /**
   * One token bucket shared by all items, on the system clock: client-go's
   * {@code BucketRateLimiter} around Go's {@code rate.NewLimiter(rate.Limit(qps), burst)}.
   * See {@link #tokenBucket(double, int, Clock)}.
   *
   * @param <T> the item type; the bucket does not look at the items
   * @param qps tokens per second: zero or more, or {@code Double.POSITIVE_INFINITY} for no limit
   * @param burst the bucket's size, which is also how many tokens it starts with: zero or more
   * @return a new limiter whose bucket is full
   * @throws IllegalArgumentException if {@code qps} is NaN or negative, or {@code burst} is
   *     negative
   */
  public static <T> RateLimiter<T> tokenBucket(double qps, int burst) {
    return tokenBucket(qps, burst, Clock.system());
  }

  /**
   * One token bucket shared by all items: client-go's {@code BucketRateLimiter} (Go's
   * {@code rate.Limiter} with {@code Reserve().Delay()} semantics). The bucket starts full
   * with {@code burst} tokens and refills at {@code qps} tokens per second up to
   * {@code burst}; each {@code when} takes a token now and returns how long until it exists,
   * so callers beyond the burst queue up one interval ({@code 1/qps}) behind each other.
   * {@code qps} {@link Double#POSITIVE_INFINITY}: never waits. {@code burst} 0 with a finite
   * rate: always "effectively never". {@code qps} 0: the first {@code burst} calls are free,
   * then "effectively never". Time going backwards earns no tokens. {@code forget} is a
   * no-op and {@code numRequeues} is 0.
   *
   * <p>Lock-free; allocates nothing per call but a non-zero returned {@code Duration}.
   *
   * @param <T> the item type; the bucket does not look at the items
   * @param qps tokens per second: zero or more, or {@code Double.POSITIVE_INFINITY}
   * @param burst the bucket's size: zero or more
   * @param clock the time source
   * @return a new limiter whose bucket is full at the current reading of {@code clock}
   * @throws IllegalArgumentException if {@code qps} is NaN or negative, or {@code burst} is
   *     negative
   * @throws NullPointerException if {@code clock} is null
   */
  public static <T> RateLimiter<T> tokenBucket(double qps, int burst, Clock clock) {
    Checks.nonNull(clock, "clock");
    return new TokenBucketRateLimiter<>(Checks.qps(qps), Checks.nonNegative(burst, "burst"), clock);
  }

  // ---- per item --------------------------------------------------------------------------

  /**
   * Exponential back-off per item, state unbounded: client-go's
   * {@code NewTypedItemExponentialFailureRateLimiter(baseDelay, maxDelay)}. Returns
   * {@code base * 2^n} capped at {@code max}, where {@code n} is the number of earlier calls
   * for the item since it was forgotten: the first call returns {@code base}. Exact at any
   * count (the 64th and the 10,000th call return {@code max}); {@code base} 0 gives 0;
   * {@code max < base} gives {@code max}. {@code numRequeues} is the count of calls.
   *
   * <p>The caller must {@code forget} each item on success.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @param base the delay of an item's first call, doubled on each further call: zero or more
   * @param max the cap on the delay: zero or more
   * @return a new limiter that tracks no item yet
   * @throws NullPointerException if {@code base} or {@code max} is null
   * @throws IllegalArgumentException if {@code base} or {@code max} is negative
   */
  public static <T> RateLimiter<T> exponential(Duration base, Duration max) {
    return exponentialBuilder(base, max).build();
  }

  /**
   * A builder for {@link #exponential(Duration, Duration)} with bounded state
   * ({@code NewTypedItemExponentialFailureRateLimiter} plus bounds).
   *
   * @param base the delay of an item's first call, doubled on each further call: zero or more
   * @param max the cap on the delay: zero or more
   * @return a new builder with no bounds set
   * @throws NullPointerException if {@code base} or {@code max} is null
   * @throws IllegalArgumentException if {@code base} or {@code max} is negative
   */
  public static PerItemLimiterBuilder exponentialBuilder(Duration base, Duration max) {
    Checks.nonNull(base, "base");
    Checks.nonNull(max, "max");
    Checks.nonNegative(base, "base");
    Checks.nonNegative(max, "max");
    return new PerItemLimiterBuilder(
        b -> new ExponentialFailureRateLimiter<>(base, max, b.newStore()));
  }

  /**
   * Fast then slow per item, state unbounded: client-go's
   * {@code NewTypedItemFastSlowRateLimiter(fastDelay, slowDelay, maxFastAttempts)}. Each call
   * counts one attempt for the item, then returns {@code fast} while the count is at most
   * {@code maxFastAttempts}, else {@code slow}. {@code numRequeues} is the count.
   *
   * <p>The caller must {@code forget} each item on success.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @param fast the delay of each of an item's first {@code maxFastAttempts} calls: zero or more
   * @param slow the delay of every later call: zero or more
   * @param maxFastAttempts how many calls per item get {@code fast}: zero or more
   * @return a new limiter that tracks no item yet
   * @throws NullPointerException if {@code fast} or {@code slow} is null
   * @throws IllegalArgumentException if a delay is negative or {@code maxFastAttempts < 0}
   */
  public static <T> RateLimiter<T> fastSlow(Duration fast, Duration slow, int maxFastAttempts) {
    return fastSlowBuilder(fast, slow, maxFastAttempts).build();
  }

  /**
   * A builder for {@link #fastSlow(Duration, Duration, int)} with bounded state
   * ({@code NewTypedItemFastSlowRateLimiter} plus bounds).
   *
   * @param fast the delay of each of an item's first {@code maxFastAttempts} calls: zero or more
   * @param slow the delay of every later call: zero or more
   * @param maxFastAttempts how many calls per item get {@code fast}: zero or more
   * @return a new builder with no bounds set
   * @throws NullPointerException if {@code fast} or {@code slow} is null
   * @throws IllegalArgumentException if a delay is negative or {@code maxFastAttempts < 0}
   */
  public static PerItemLimiterBuilder fastSlowBuilder(
      Duration fast, Duration slow, int maxFastAttempts) {
    Checks.nonNull(fast, "fast");
    Checks.nonNull(slow, "slow");
    Checks.nonNegative(fast, "fast");
    Checks.nonNegative(slow, "slow");
    Checks.nonNegative(maxFastAttempts, "maxFastAttempts");
    return new PerItemLimiterBuilder(
        b -> new FastSlowRateLimiter<>(fast, slow, maxFastAttempts, b.newStore()));
  }

  /**
   * A token bucket per item on the system clock, state unbounded. See
   * {@link #perItemTokenBucket(double, int, Clock)}.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @param qps tokens per second in each item's bucket: zero or more, or
   *     {@code Double.POSITIVE_INFINITY} for no limit
   * @param burst the size of each item's bucket: zero or more
   * @return a new limiter that holds no bucket yet
   * @throws IllegalArgumentException if {@code qps} is NaN or negative, or {@code burst} is
   *     negative
   */
  public static <T> RateLimiter<T> perItemTokenBucket(double qps, int burst) {
    return perItemTokenBucketBuilder(qps, burst).build();
  }

  /**
   * A token bucket per item, state unbounded: client-go's {@code NewItemBucketRateLimiter}
   * (added in 2020 and reverted). Each item gets its own bucket, exactly like
   * {@link #tokenBucket(double, int, Clock)}, made full on its first {@code when} and
   * dropped by {@code forget}. {@code numRequeues} is 0, as in client-go.
   *
   * <p>The caller must {@code forget} each item it is done with.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @param qps tokens per second in each item's bucket: zero or more, or
   *     {@code Double.POSITIVE_INFINITY} for no limit
   * @param burst the size of each item's bucket: zero or more
   * @param clock the time source of every bucket
   * @return a new limiter that holds no bucket yet
   * @throws IllegalArgumentException if {@code qps} is NaN or negative, or {@code burst} is
   *     negative
   * @throws NullPointerException if {@code clock} is null
   */
  public static <T> RateLimiter<T> perItemTokenBucket(double qps, int burst, Clock clock) {
    Checks.nonNull(clock, "clock");
    return perItemTokenBucketBuilder(qps, burst).clock(clock).build();
  }

  /**
   * A builder for {@link #perItemTokenBucket(double, int, Clock)} with bounded state; its
   * {@link PerItemLimiterBuilder#clock clock} also drives the buckets.
   *
   * @param qps tokens per second in each item's bucket: zero or more, or
   *     {@code Double.POSITIVE_INFINITY} for no limit
   * @param burst the size of each item's bucket: zero or more
   * @return a new builder with no bounds and no clock set (the system clock by default)
   * @throws IllegalArgumentException if {@code qps} is NaN or negative, or {@code burst} is
   *     negative
   */
  public static PerItemLimiterBuilder perItemTokenBucketBuilder(double qps, int burst) {
    Checks.qps(qps);
    Checks.nonNegative(burst, "burst");
    return new PerItemLimiterBuilder(
        b -> new PerItemTokenBucketRateLimiter<>(qps, burst, b.clockOrSystem(), b.newStore()));
  }

  // ---- decorators ------------------------------------------------------------------------

  /**
   * The longest delay of {@code limiters}: client-go's {@code NewTypedMaxOfRateLimiter}.
   * Every limiter is called on every {@code when} (so a token bucket always gives up a
   * token); {@code numRequeues} is the largest of theirs; {@code forget} reaches all.
   *
   * @param <T> the item type; each limiter may take a supertype of it
   * @param limiters the limiters to ask, at least one; the array is copied
   * @return a new limiter answering the longest of their delays
   * @throws NullPointerException if {@code limiters} or any of them is null
   * @throws IllegalArgumentException if {@code limiters} is empty
   */
  @SafeVarargs
  public static <T> RateLimiter<T> maxOf(RateLimiter<? super T>... limiters) {
    Checks.nonNull(limiters, "limiters");
    RateLimiter<?>[] copy = new RateLimiter<?>[limiters.length];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = limiters[i];
    }
    return maxOfCopy(copy);
  }

  /**
   * {@link #maxOf(RateLimiter[])} over a collection: client-go's
   * {@code NewTypedMaxOfRateLimiter}.
   *
   * @param <T> the item type; each limiter may take a supertype of it
   * @param limiters the limiters to ask, at least one; the collection is copied
   * @return a new limiter answering the longest of their delays
   * @throws NullPointerException if {@code limiters} or any of them is null
   * @throws IllegalArgumentException if {@code limiters} is empty
   */
  public static <T> RateLimiter<T> maxOf(Collection<? extends RateLimiter<? super T>> limiters) {
    Checks.nonNull(limiters, "limiters");
    return maxOfCopy(limiters.toArray(new RateLimiter<?>[0]));
  }

  /** {@code copy} is the caller's own array of {@code RateLimiter<? super T>}. */
  private static <T> RateLimiter<T> maxOfCopy(RateLimiter<?>[] limiters) {
    @SuppressWarnings("unchecked") // every element was passed as a RateLimiter<? super T>
    RateLimiter<? super T>[] copy = (RateLimiter<? super T>[]) limiters;
    for (RateLimiter<? super T> limiter : copy) {
      Checks.nonNull(limiter, "limiters element");
    }
    if (copy.length == 0) {
      throw new IllegalArgumentException("limiters must not be empty");
    }
    return new MaxOfRateLimiter<>(copy);
  }

  /**
   * Caps the delay of {@code inner} at {@code maxWait}: client-go's
   * {@code NewTypedWithMaxWaitRateLimiter}. {@code forget} and {@code numRequeues} go to
   * {@code inner}.
   *
   * @param <T> the item type; {@code inner} may take a supertype of it
   * @param inner the limiter whose delays are capped; still asked on every call
   * @param maxWait the longest delay returned: zero or more
   * @return a new limiter answering {@code min(inner.when(item), maxWait)}
   * @throws NullPointerException if {@code inner} or {@code maxWait} is null
   * @throws IllegalArgumentException if {@code maxWait} is negative
   */
  public static <T> RateLimiter<T> withMaxWait(RateLimiter<? super T> inner, Duration maxWait) {
    Checks.nonNull(inner, "inner");
    Checks.nonNegative(maxWait, "maxWait");
    return new MaxWaitRateLimiter<>(inner, maxWait);
  }

  /**
   * Proportional jitter on {@code inner}, with a thread-local random source. See
   * {@link #withJitter(RateLimiter, double, DoubleSupplier)}.
   *
   * @param <T> the item type; {@code inner} may take a supertype of it
   * @param inner the limiter whose delays are lengthened at random
   * @param maxFactor the largest share of the delay added, e.g. 0.1 for up to 10% longer:
   *     finite, zero or more
   * @return a new limiter answering the delay {@code d} of {@code inner} plus up to
   *     {@code d * maxFactor}
   * @throws NullPointerException if {@code inner} is null
   * @throws IllegalArgumentException if {@code maxFactor} is NaN, infinite or negative
   */
  public static <T> RateLimiter<T> withJitter(RateLimiter<? super T> inner, double maxFactor) {
    return withJitter(inner, maxFactor, THREAD_LOCAL_RANDOM);
  }

  /**
   * Proportional jitter (not in client-go; Kubernetes' {@code wait.Jitter}): returns
   * {@code d + d * maxFactor * r}, where {@code d} is the delay of {@code inner} and
   * {@code r} a number from {@code random} in {@code [0, 1)}. Never shorter than {@code d}, so
   * it is safe around a token bucket or a {@link #maxOf} holding one.
   *
   * @param <T> the item type; {@code inner} may take a supertype of it
   * @param inner the limiter whose delays are lengthened at random
   * @param maxFactor the largest share of the delay added, e.g. 0.1 for up to 10% longer:
   *     finite, zero or more
   * @param random numbers in {@code [0, 1)} (others are clamped into {@code [0, 1]}); must be
   *     thread-safe
   * @return a new limiter answering the delay {@code d} of {@code inner} plus up to
   *     {@code d * maxFactor}
   * @throws NullPointerException if {@code inner} or {@code random} is null
   * @throws IllegalArgumentException if {@code maxFactor} is NaN, infinite or negative
   */
  public static <T> RateLimiter<T> withJitter(
      RateLimiter<? super T> inner, double maxFactor, DoubleSupplier random) {
    Checks.nonNull(inner, "inner");
    Checks.nonNull(random, "random");
    Checks.factor(maxFactor, "maxFactor");
    return new JitterRateLimiter<>(inner, true, maxFactor, random);
  }

  /**
   * Full jitter on {@code inner}, with a thread-local random source. See
   * {@link #withFullJitter(RateLimiter, DoubleSupplier)}.
   *
   * @param <T> the item type; {@code inner} may take a supertype of it
   * @param inner the limiter whose delays are shortened at random, typically a back-off
   * @return a new limiter answering between zero and the delay of {@code inner}
   * @throws NullPointerException if {@code inner} is null
   */
  public static <T> RateLimiter<T> withFullJitter(RateLimiter<? super T> inner) {
    return withFullJitter(inner, THREAD_LOCAL_RANDOM);
  }

  /**
   * Full jitter (not in client-go; the "full jitter" of AWS's back-off study): returns
   * {@code d * r}, where {@code d} is the delay of {@code inner} and {@code r} a number from
   * {@code random} in {@code [0, 1)}. Meant for back-off: around a token bucket it would let
   * items run earlier than the bucket allows, so put it on the back-off alone, e.g.
   * {@code maxOf(withFullJitter(exponential(...)), tokenBucket(...))}.
   *
   * @param <T> the item type; {@code inner} may take a supertype of it
   * @param inner the limiter whose delays are shortened at random, typically a back-off
   * @param random numbers in {@code [0, 1)} (others are clamped into {@code [0, 1]}); must be
   *     thread-safe
   * @return a new limiter answering between zero and the delay of {@code inner}
   * @throws NullPointerException if {@code inner} or {@code random} is null
   */
  public static <T> RateLimiter<T> withFullJitter(
      RateLimiter<? super T> inner, DoubleSupplier random) {
    Checks.nonNull(inner, "inner");
    Checks.nonNull(random, "random");
    return new JitterRateLimiter<>(inner, false, 1.0, random);
  }

  // ---- defaults --------------------------------------------------------------------------

  /**
   * client-go's {@code DefaultTypedControllerRateLimiter}: the larger of an exponential
   * back-off per item from 5 ms to 1000 s and an overall token bucket of 10 per second
   * (per second, not per minute) with a burst of 100, on the system clock.
   *
   * <p>The caller must {@code forget} each item on success.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @return a new limiter that tracks no item yet, with a full bucket
   */
  public static <T> RateLimiter<T> defaultControllerRateLimiter() {
    return defaultControllerRateLimiter(Clock.system());
  }

  /**
   * {@link #defaultControllerRateLimiter()} with its token bucket on {@code clock}
   * ({@code DefaultTypedControllerRateLimiter}).
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @param clock the time source of the token bucket (the back-off reads no time)
   * @return a new limiter that tracks no item yet, with a full bucket
   * @throws NullPointerException if {@code clock} is null
   */
  public static <T> RateLimiter<T> defaultControllerRateLimiter(Clock clock) {
    Checks.nonNull(clock, "clock");
    return maxOf(
        exponential(Duration.ofMillis(5), Duration.ofSeconds(1000)),
        tokenBucket(10, 100, clock));
  }

  /**
   * client-go's {@code DefaultTypedItemBasedRateLimiter}: exponential back-off per item
   * from 1 ms to 1000 s.
   *
   * <p>The caller must {@code forget} each item on success.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @return a new limiter that tracks no item yet
   */
  public static <T> RateLimiter<T> defaultItemBasedRateLimiter() {
    return exponential(Duration.ofMillis(1), Duration.ofSeconds(1000));
  }
}
