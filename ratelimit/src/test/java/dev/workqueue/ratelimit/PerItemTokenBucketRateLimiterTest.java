package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PerItemTokenBucketRateLimiterTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void eachItem_hasItsOwnBucket() {
    RateLimiter<String> limiter = RateLimiters.perItemTokenBucket(10, 1, clock);

    assertEquals(Duration.ZERO, limiter.when("a"));
    assertEquals(Duration.ofMillis(100), limiter.when("a"));
    assertEquals(Duration.ZERO, limiter.when("b")); // b's bucket is still full
    assertEquals(Duration.ofMillis(100), limiter.when("b"));
  }

  @Test
  void bucket_isMadeOnFirstUse_andDroppedByForget() {
    RateLimiter<String> limiter = RateLimiters.perItemTokenBucket(10, 1, clock);
    TracksItems tracked = (TracksItems) limiter;
    assertEquals(0, tracked.trackedItems());

    limiter.when("a");
    limiter.when("a");
    assertEquals(1, tracked.trackedItems());

    limiter.forget("a");
    assertEquals(0, tracked.trackedItems());
    assertEquals(Duration.ZERO, limiter.when("a")); // a new, full bucket
  }

  @Test
  void buckets_refillOnTheInjectedClock() {
    RateLimiter<String> limiter = RateLimiters.perItemTokenBucket(10, 2, clock);
    limiter.when("a");
    limiter.when("a");
    assertEquals(Duration.ofMillis(100), limiter.when("a"));

    clock.stepMillis(300); // debt 300 ms, earned back: full

    assertEquals(Duration.ZERO, limiter.when("a"));
    assertEquals(Duration.ZERO, limiter.when("a"));
    assertEquals(Duration.ofMillis(100), limiter.when("a"));
  }

  @Test
  void numRequeues_isAlwaysZero_asInClientGo() {
    RateLimiter<String> limiter = RateLimiters.perItemTokenBucket(10, 1, clock);
    limiter.when("a");
    limiter.when("a");
    assertEquals(0, limiter.numRequeues("a"));
  }
}
