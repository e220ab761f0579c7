package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MaxOfRateLimiterTest {

  @Test
  void maxOf_returnsTheLongestDelay() {
    RateLimiter<String> limiter = RateLimiters.maxOf(
        RateLimiters.fastSlow(Duration.ofMillis(5), Duration.ofSeconds(3), 1),
        RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1)));

    assertEquals(Duration.ofMillis(5), limiter.when("one")); // 5 ms vs 1 ms
    assertEquals(Duration.ofSeconds(3), limiter.when("one")); // 3 s vs 2 ms
  }

  @Test
  void maxOf_takesATokenFromItsBucketOnEveryCall() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> bucket = RateLimiters.tokenBucket(1, 3, clock);
    RateLimiter<String> limiter = RateLimiters.maxOf(
        RateLimiters.exponential(Duration.ofSeconds(10), Duration.ofSeconds(100)), bucket);

    // The back-off answers longer every time, yet each call still takes a token ...
    assertEquals(Duration.ofSeconds(10), limiter.when("a"));
    assertEquals(Duration.ofSeconds(10), limiter.when("b"));
    assertEquals(Duration.ofSeconds(10), limiter.when("c"));

    // ... so the bucket (burst 3, 1 per second) is empty now.
    assertEquals(Duration.ofSeconds(1), bucket.when("x"));
  }

  @Test
  void maxOf_bucketDebtFromEarlierCalls_showsInLaterDelays() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.maxOf(
        RateLimiters.exponential(Duration.ofMillis(1), Duration.ofMillis(1)),
        RateLimiters.tokenBucket(10, 2, clock));

    assertEquals(Duration.ofMillis(1), limiter.when("a"));
    assertEquals(Duration.ofMillis(1), limiter.when("b"));
    assertEquals(Duration.ofMillis(100), limiter.when("c"));
    assertEquals(Duration.ofMillis(200), limiter.when("d"));
  }

  @Test
  void numRequeues_isTheLargest_andForgetReachesAll() {
    RateLimiter<String> fastSlow = RateLimiters.fastSlow(Duration.ZERO, Duration.ZERO, 1);
    RateLimiter<String> exponential = RateLimiters.exponential(Duration.ZERO, Duration.ZERO);
    RateLimiter<String> limiter = RateLimiters.maxOf(List.of(fastSlow, exponential));
    exponential.when("one"); // only one of them saw an extra attempt
    limiter.when("one");

    assertEquals(2, limiter.numRequeues("one"));

    limiter.forget("one");
    assertEquals(0, fastSlow.numRequeues("one"));
    assertEquals(0, exponential.numRequeues("one"));
  }
}
