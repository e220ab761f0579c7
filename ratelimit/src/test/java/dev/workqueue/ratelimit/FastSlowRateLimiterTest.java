package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FastSlowRateLimiterTest {
  private static final Duration FAST = Duration.ofMillis(5);
  private static final Duration SLOW = Duration.ofSeconds(10);

  @Test
  void threeFastAttempts_thenSlow() {
    RateLimiter<String> limiter = RateLimiters.fastSlow(FAST, SLOW, 3);

    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      delays.add(limiter.when("one"));
    }

    assertEquals(List.of(FAST, FAST, FAST, SLOW, SLOW), delays);
    assertEquals(5, limiter.numRequeues("one"));
  }

  @Test
  void items_areIndependent() {
    RateLimiter<String> limiter = RateLimiters.fastSlow(FAST, SLOW, 1);
    limiter.when("one");

    assertEquals(FAST, limiter.when("two"));
    assertEquals(SLOW, limiter.when("one"));
  }

  @Test
  void forget_startsFastAgain() {
    RateLimiter<String> limiter = RateLimiters.fastSlow(FAST, SLOW, 1);
    limiter.when("one");
    limiter.when("one");

    limiter.forget("one");

    assertEquals(0, limiter.numRequeues("one"));
    assertEquals(FAST, limiter.when("one"));
  }

  @Test
  void zeroFastAttempts_isAlwaysSlow() {
    RateLimiter<String> limiter = RateLimiters.fastSlow(FAST, SLOW, 0);
    assertEquals(SLOW, limiter.when("one"));
  }
}
