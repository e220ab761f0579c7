package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

class JitterRateLimiterTest {
  private static final Duration SECOND = Duration.ofSeconds(1);

  /** Hands out the given numbers in turn. */
  private static DoubleSupplier fixed(Double... values) {
    ArrayDeque<Double> queue = new ArrayDeque<>(List.of(values));
    return queue::removeFirst;
  }

  private static RateLimiter<String> constant(Duration d) {
    return RateLimiters.fastSlow(d, d, 0);
  }

  @Test
  void fullJitter_scalesTheDelayByTheRandomNumber() {
    RateLimiter<String> limiter =
        RateLimiters.withFullJitter(constant(SECOND), fixed(0.0, 0.25, 0.5, 0.75));

    assertEquals(Duration.ZERO, limiter.when("x"));
    assertEquals(Duration.ofMillis(250), limiter.when("x"));
    assertEquals(Duration.ofMillis(500), limiter.when("x"));
    assertEquals(Duration.ofMillis(750), limiter.when("x"));
  }

  @Test
  void proportionalJitter_addsUpToMaxFactorOfTheDelay() {
    RateLimiter<String> limiter =
        RateLimiters.withJitter(constant(SECOND), 0.5, fixed(0.0, 0.5, 0.25));

    assertEquals(SECOND, limiter.when("x"));
    assertEquals(Duration.ofMillis(1250), limiter.when("x"));
    assertEquals(Duration.ofMillis(1125), limiter.when("x"));
  }

  @Test
  void jitter_onExponentialBackOff_followsEachStep() {
    RateLimiter<String> limiter = RateLimiters.withFullJitter(
        RateLimiters.exponential(Duration.ofMillis(100), SECOND), fixed(0.5, 0.5, 0.5));

    assertEquals(Duration.ofMillis(50), limiter.when("x"));
    assertEquals(Duration.ofMillis(100), limiter.when("x"));
    assertEquals(Duration.ofMillis(200), limiter.when("x"));
    assertEquals(3, limiter.numRequeues("x"));
    limiter.forget("x");
    assertEquals(0, limiter.numRequeues("x"));
  }

  @Test
  void zeroDelay_staysZero_withoutDrawing() {
    RateLimiter<String> limiter = RateLimiters.withJitter(constant(Duration.ZERO), 1.0, () -> {
      throw new AssertionError("drew a number for a zero delay");
    });
    assertEquals(Duration.ZERO, limiter.when("x"));
  }

  @Test
  void outOfRangeRandomNumbers_areClamped_neverNegative() {
    RateLimiter<String> full =
        RateLimiters.withFullJitter(constant(SECOND), fixed(-3.0, Double.NaN, 7.0));
    assertEquals(Duration.ZERO, full.when("x"));
    assertEquals(Duration.ZERO, full.when("x"));
    assertEquals(SECOND, full.when("x"));
  }

  @Test
  void hugeDelays_saturate() {
    RateLimiter<String> limiter = RateLimiters.withJitter(
        constant(Duration.ofDays(365L * 1000)), 1000.0, fixed(1.0));
    assertEquals(Duration.ofNanos(TimeMath.MAX_DELAY_NANOS), limiter.when("x"));
  }

  @Test
  void defaultRandomSource_staysWithinBounds() {
    RateLimiter<String> full = RateLimiters.withFullJitter(constant(SECOND));
    RateLimiter<String> proportional = RateLimiters.withJitter(constant(SECOND), 0.1);
    for (int i = 0; i < 1000; i++) {
      Duration f = full.when("x");
      assertFalse(f.isNegative());
      assertTrue(f.compareTo(SECOND) <= 0);
      Duration p = proportional.when("x");
      assertTrue(p.compareTo(SECOND) >= 0);
      assertTrue(p.compareTo(Duration.ofMillis(1100)) <= 0);
    }
  }
}
