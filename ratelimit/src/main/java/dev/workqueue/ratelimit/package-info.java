/**
 * Rate limiters: how long an item must wait before it is processed again. Everything is
 * reached through {@link dev.workqueue.ratelimit.RateLimiters}; the implementations are
 * package-private.
 *
 * <h2>The family, and the client-go names</h2>
 *
 * <table>
 *   <caption>Factories and their client-go counterparts</caption>
 *   <tr><th>factory</th><th>client-go</th></tr>
 *   <tr><td>{@code tokenBucket(qps, burst[, clock])}</td><td>{@code BucketRateLimiter}</td></tr>
 *   <tr><td>{@code exponential(base, max)}</td>
 *       <td>{@code NewTypedItemExponentialFailureRateLimiter}</td></tr>
 *   <tr><td>{@code fastSlow(fast, slow, maxFastAttempts)}</td>
 *       <td>{@code NewTypedItemFastSlowRateLimiter}</td></tr>
 *   <tr><td>{@code maxOf(limiters...)}</td><td>{@code NewTypedMaxOfRateLimiter}</td></tr>
 *   <tr><td>{@code withMaxWait(inner, maxWait)}</td>
 *       <td>{@code NewTypedWithMaxWaitRateLimiter}</td></tr>
 *   <tr><td>{@code defaultControllerRateLimiter()}</td>
 *       <td>{@code DefaultTypedControllerRateLimiter}</td></tr>
 *   <tr><td>{@code defaultItemBasedRateLimiter()}</td>
 *       <td>{@code DefaultTypedItemBasedRateLimiter}</td></tr>
 *   <tr><td>{@code perItemTokenBucket(qps, burst[, clock])}</td>
 *       <td>{@code NewItemBucketRateLimiter} (2020, reverted)</td></tr>
 *   <tr><td>{@code withJitter}, {@code withFullJitter}</td><td>none</td></tr>
 * </table>
 *
 * <h2>Design choices</h2>
 *
 * <ul>
 *   <li>The token bucket keeps Go's reservation semantics in a single {@code long} (the clock
 *       reading at which the bucket is full again), updated by compare-and-set: no lock, no
 *       allocation for a zero delay. The essay in {@code TokenBucketRateLimiter} explains it
 *       with a worked example.
 *   <li>The exponential back-off precomputes its delays up to the cap, so a call is a
 *       map look-up of the item's counter (made once, on its first failure), a compare-and-set
 *       on it and an array read; it cannot overflow at any count.
 *   <li>Per-item state is unbounded by default, as in client-go: the caller must
 *       {@code forget} items. {@link dev.workqueue.ratelimit.PerItemLimiterBuilder} bounds it
 *       (maximum items, expiry after inactivity) with a Caffeine cache that reads time from
 *       the same {@link dev.workqueue.clock.Clock} and does its maintenance in the calling
 *       thread, so a {@link dev.workqueue.clock.FakeClock} drives eviction deterministically.
 *   <li>Time and randomness are injected: a {@code Clock} for buckets and expiry, a
 *       {@link java.util.function.DoubleSupplier} for jitter.
 * </ul>
 */
package dev.workqueue.ratelimit;
