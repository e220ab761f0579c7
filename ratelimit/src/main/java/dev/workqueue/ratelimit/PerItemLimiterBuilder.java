package dev.workqueue.ratelimit;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.function.Function;

/**
 * Builds a per-item limiter (exponential back-off, fast-slow, per-item token bucket) with
 * optional bounds on the state it keeps. Get one from {@link RateLimiters}, e.g.
 *
 * <pre>{@code
 * RateLimiter<String> limiter = RateLimiters
 *     .exponentialBuilder(Duration.ofMillis(5), Duration.ofSeconds(1000))
 *     .maximumTrackedItems(100_000)
 *     .expireAfterInactivity(Duration.ofHours(1))
 *     .build();
 * }</pre>
 *
 * <p>Without bounds a per-item limiter remembers every item until it is forgotten, as
 * client-go's do; a caller that never calls {@code forget} (for items deleted while failing,
 * say) leaks. With bounds, the state of the least recently used items beyond the maximum,
 * and of items without a {@code when} for the given time, is dropped: such an item starts
 * again from its first attempt. Eviction runs in the threads that call the limiter, with time
 * read from the limiter's {@link Clock}, so a {@code FakeClock} drives it deterministically.
 *
 * <p>Each setter checks its argument at once and may be called once. A builder is not
 * thread-safe; the limiters it builds are, and {@link #build} may be called more than once
 * (each call makes an independent limiter).
 */
public final class PerItemLimiterBuilder {
  private static final long UNSET = -1;

  private final Function<PerItemLimiterBuilder, RateLimiter<Object>> factory;
  private long maximumTrackedItems = UNSET;
  private Duration expireAfterInactivity;
  private Clock clock;

  PerItemLimiterBuilder(Function<PerItemLimiterBuilder, RateLimiter<Object>> factory) {
    this.factory = factory;
  }

  /**
   * Keeps state for at most {@code maximum} items, dropping the least recently used beyond
   * it (Caffeine's size eviction: the bound holds once pending maintenance has run, which
   * happens on the limiter's own calls).
   *
   * @param maximum the most items to keep state for: positive
   * @return this builder
   * @throws IllegalArgumentException if {@code maximum} is not positive
   * @throws IllegalStateException if already set
   */
  public PerItemLimiterBuilder maximumTrackedItems(long maximum) {
    Checks.positive(maximum, "maximumTrackedItems");
    if (maximumTrackedItems != UNSET) {
      throw new IllegalStateException("maximumTrackedItems was already set");
    }
    maximumTrackedItems = maximum;
    return this;
  }

  /**
   * Drops an item's state once {@code inactivity} has passed without a {@code when} for it.
   *
   * @param inactivity how long an item's state is kept after its last {@code when}, as read
   *     from the {@link #clock clock}: positive
   * @return this builder
   * @throws NullPointerException if {@code inactivity} is null
   * @throws IllegalArgumentException if {@code inactivity} is zero or negative
   * @throws IllegalStateException if already set
   */
  public PerItemLimiterBuilder expireAfterInactivity(Duration inactivity) {
    Checks.positive(inactivity, "inactivity");
    if (expireAfterInactivity != null) {
      throw new IllegalStateException("expireAfterInactivity was already set");
    }
    expireAfterInactivity = inactivity;
    return this;
  }

  /**
   * The time source for expiry and for token buckets; {@link Clock#system()} by default.
   *
   * @param clock the time source; a {@code FakeClock} makes expiry deterministic in tests
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   * @throws IllegalStateException if already set
   */
  public PerItemLimiterBuilder clock(Clock clock) {
    Checks.nonNull(clock, "clock");
    if (this.clock != null) {
      throw new IllegalStateException("clock was already set");
    }
    this.clock = clock;
    return this;
  }

  /**
   * A new limiter with the options set so far.
   *
   * @param <T> the item type, compared with {@code equals}/{@code hashCode}
   * @return a new limiter with its own state, tracking no item yet
   */
  @SuppressWarnings("unchecked") // the limiters use items only through equals and hashCode
  public <T> RateLimiter<T> build() {
    return (RateLimiter<T>) factory.apply(this);
  }

  Clock clockOrSystem() {
    return clock != null ? clock : Clock.system();
  }

  <K, V> ItemStore<K, V> newStore() {
    if (maximumTrackedItems == UNSET && expireAfterInactivity == null) {
      return ItemStore.unbounded();
    }
    return ItemStore.bounded(maximumTrackedItems, expireAfterInactivity, clockOrSystem());
  }

  @Override
  public String toString() {
    return "PerItemLimiterBuilder{maximumTrackedItems="
        + (maximumTrackedItems == UNSET ? "unbounded" : maximumTrackedItems)
        + ", expireAfterInactivity=" + expireAfterInactivity + "}";
  }
}
