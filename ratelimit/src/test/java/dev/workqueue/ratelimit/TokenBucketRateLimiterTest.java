package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TokenBucketRateLimiterTest {
  private static final Duration NEVER = Duration.ofNanos(TimeMath.MAX_DELAY_NANOS);

  private final FakeClock clock = new FakeClock();

  @Test
  void burst_isServedAtZeroDelay_thenEachCallWaitsOneIntervalMore() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 3, clock);

    assertEquals(
        List.of(ms(0), ms(0), ms(0), ms(100), ms(200), ms(300)), timeline(bucket, 6));
  }

  @Test
  void essayExample_timelineMatchesTheTable() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 3, clock);
    List<Duration> waits = new ArrayList<>(timeline(bucket, 5)); // calls 1-5 at t = 0
    clock.stepMillis(250);
    waits.add(bucket.when("x")); // call 6 at t = 250
    clock.stepMillis(750);
    waits.add(bucket.when("x")); // call 7 at t = 1000

    assertEquals(List.of(ms(0), ms(0), ms(0), ms(100), ms(200), ms(50), ms(0)), waits);
    assertEquals(List.of(ms(0), ms(0), ms(100)), timeline(bucket, 3)); // 2 tokens were left
  }

  @Test
  void bucket_ignoresTheItem() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 1, clock);
    assertEquals(ms(0), bucket.when("a"));
    assertEquals(ms(100), bucket.when("b"));
    bucket.forget("a");
    assertEquals(ms(200), bucket.when("a"));
    assertEquals(0, bucket.numRequeues("a"));
  }

  @Test
  void refill_afterTimePasses_isExact() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 3, clock);
    timeline(bucket, 5); // 3 free, then debts of 100 and 200 ms: tokens -2

    clock.stepMillis(250); // earns 2.5 tokens: 0.5

    // Half a token is not a token: taking one leaves -0.5, which is earned back in 50 ms.
    assertEquals(ms(50), bucket.when("x"));
    assertEquals(ms(150), bucket.when("x"));
    clock.stepMillis(150);
    assertEquals(ms(100), bucket.when("x"));
  }

  @Test
  void refill_isCappedAtBurst() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 3, clock);
    timeline(bucket, 3);

    clock.step(Duration.ofHours(1)); // would be 36,000 tokens without the cap

    assertEquals(List.of(ms(0), ms(0), ms(0), ms(100)), timeline(bucket, 4));
  }

  @Test
  void waitingExactlyTheReturnedDelay_findsTheTokenThere() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(4, 1, clock);
    assertEquals(ms(0), bucket.when("x"));
    assertEquals(ms(250), bucket.when("x"));
    clock.stepMillis(250);
    assertEquals(ms(250), bucket.when("x")); // the previous caller used the 250 ms token
    clock.stepMillis(500);
    assertEquals(ms(0), bucket.when("x"));
  }

  @Test
  void infiniteQps_alwaysZero_evenWithBurstZero() {
    RateLimiter<String> unlimited = RateLimiters.tokenBucket(Double.POSITIVE_INFINITY, 0, clock);
    for (int i = 0; i < 1000; i++) {
      assertSame(Duration.ZERO, unlimited.when("x"));
    }
  }

  @Test
  void burstZero_withFiniteQps_isEffectivelyNever_andStaysSo() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 0, clock);
    for (int i = 0; i < 100; i++) {
      assertEquals(NEVER, bucket.when("x"));
    }
    clock.step(Duration.ofDays(365));
    assertEquals(NEVER, bucket.when("x"));
  }

  @Test
  void qpsZero_letsBurstThroughFree_thenEffectivelyNever() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(0, 2, clock);
    assertEquals(ms(0), bucket.when("x"));
    assertEquals(ms(0), bucket.when("x"));
    assertEquals(NEVER, bucket.when("x"));
    clock.step(Duration.ofDays(365));
    assertEquals(NEVER, bucket.when("x"));
  }

  @Test
  void tinyQpsAndHugeBurst_saturateInsteadOfOverflowing() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(1e-300, Integer.MAX_VALUE, clock);
    assertEquals(ms(0), bucket.when("x"));
    RateLimiter<String> slow = RateLimiters.tokenBucket(1e-300, 1, clock);
    assertEquals(ms(0), slow.when("x"));
    for (int i = 0; i < 10; i++) {
      Duration d = slow.when("x");
      assertEquals(NEVER, d); // capped debt: never negative, never wrapped
    }
  }

  @Test
  void manyCallsInDebt_neverWrap() {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(1e-6, 1, clock); // 11.6 days a token
    Duration previous = Duration.ZERO;
    for (int i = 0; i < 100_000; i++) {
      Duration d = bucket.when("x");
      assertTrue(d.compareTo(previous) >= 0, "call " + i);
      assertTrue(d.compareTo(NEVER) <= 0, "call " + i);
      previous = d;
    }
    assertEquals(NEVER, previous);
  }

  @Test
  void timeGoingBackwards_givesNoRefill() {
    clock.setTime(Duration.ofSeconds(10).toNanos());
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 2, clock);
    timeline(bucket, 2); // empty at t = 10 s

    clock.setTime(Duration.ofSeconds(5).toNanos());

    // No token was earned; the next one still exists at t = 10.1 s, now 5.1 s away.
    assertEquals(Duration.ofMillis(5100), bucket.when("x"));
    clock.setTime(Duration.ofSeconds(10).toNanos());
    assertEquals(ms(200), bucket.when("x"));
  }

  @Test
  void clockNearLongMaxValue_wrapsSafely() {
    FakeClock nearEnd = new FakeClock(Long.MAX_VALUE - Duration.ofMillis(150).toNanos());
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 2, nearEnd);
    assertEquals(List.of(ms(0), ms(0), ms(100), ms(200)), timeline(bucket, 4));

    nearEnd.stepMillis(300); // the reading wraps past Long.MAX_VALUE

    assertEquals(ms(0), bucket.when("x")); // debt 400 - 300 = 100: one token back
    assertEquals(ms(100), bucket.when("x"));
    nearEnd.step(Duration.ofSeconds(10));
    assertEquals(List.of(ms(0), ms(0), ms(100)), timeline(bucket, 3));
  }

  @Test
  void fifteenConcurrentCallers_onBurstFive_getExactlyFiveZeroDelays() throws Exception {
    RateLimiter<String> bucket = RateLimiters.tokenBucket(10, 5, clock); // the clock stays put
    int callers = 15;
    CountDownLatch ready = new CountDownLatch(callers);
    CountDownLatch go = new CountDownLatch(1);
    ConcurrentLinkedQueue<Duration> delays = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      Thread t = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        delays.add(bucket.when("x"));
      });
      t.start();
      threads.add(t);
    }
    assertTrue(ready.await(10, TimeUnit.SECONDS));
    go.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(10));
    }

    List<Duration> sorted = new ArrayList<>(delays);
    sorted.sort(null);
    List<Duration> expected = new ArrayList<>();
    for (int i = 0; i < callers; i++) {
      expected.add(ms(Math.max(0, i - 4) * 100L)); // five zeros, then 100, 200, ... 1000 ms
    }
    assertEquals(expected, sorted);
  }

  private static List<Duration> timeline(RateLimiter<String> limiter, int calls) {
    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      delays.add(limiter.when("x"));
    }
    return delays;
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
