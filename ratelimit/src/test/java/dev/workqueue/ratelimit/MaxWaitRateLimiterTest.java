package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MaxWaitRateLimiterTest {

  @Test
  void withMaxWait_capsLongerDelays_andPassesShorterOnes() {
    RateLimiter<String> limiter = RateLimiters.withMaxWait(
        RateLimiters.exponential(Duration.ofMillis(100), Duration.ofSeconds(100)),
        Duration.ofMillis(250));

    assertEquals(Duration.ofMillis(100), limiter.when("one"));
    assertEquals(Duration.ofMillis(200), limiter.when("one"));
    assertEquals(Duration.ofMillis(250), limiter.when("one")); // 400 capped
    assertEquals(Duration.ofMillis(250), limiter.when("one")); // 800 capped
  }

  @Test
  void withMaxWait_delegatesNumRequeuesAndForget() {
    RateLimiter<String> inner = RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
    RateLimiter<String> limiter = RateLimiters.withMaxWait(inner, Duration.ZERO);
    assertEquals(Duration.ZERO, limiter.when("one"));
    limiter.when("one");

    assertEquals(2, limiter.numRequeues("one"));
    limiter.forget("one");
    assertEquals(0, inner.numRequeues("one"));
  }
}
