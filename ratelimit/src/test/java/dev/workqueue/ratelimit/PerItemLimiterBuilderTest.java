package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PerItemLimiterBuilderTest {
  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration MAX = Duration.ofSeconds(1000);

  private final FakeClock clock = new FakeClock();

  @Test
  void maximumTrackedItems_holdsForAMillionItemsNeverForgotten() {
    RateLimiter<Integer> limiter = RateLimiters.exponentialBuilder(MS, MAX)
        .maximumTrackedItems(1_000)
        .clock(clock)
        .build();

    for (int i = 0; i < 1_000_000; i++) {
      limiter.when(i);
    }

    long tracked = ((TracksItems) limiter).trackedItems();
    assertTrue(tracked <= 1_000, "tracked " + tracked);
    assertTrue(tracked > 0, "tracked " + tracked);
  }

  @Test
  void maximumTrackedItems_boundsFastSlowAndPerItemBuckets() {
    RateLimiter<Integer> fastSlow = RateLimiters.fastSlowBuilder(MS, MAX, 3)
        .maximumTrackedItems(100).clock(clock).build();
    RateLimiter<Integer> buckets = RateLimiters.perItemTokenBucketBuilder(10, 1)
        .maximumTrackedItems(100).clock(clock).build();

    for (int i = 0; i < 100_000; i++) {
      fastSlow.when(i);
      buckets.when(i);
    }

    assertTrue(((TracksItems) fastSlow).trackedItems() <= 100);
    assertTrue(((TracksItems) buckets).trackedItems() <= 100);
  }

  @Test
  void unbounded_tracksEveryItemUntilForgotten() {
    RateLimiter<Integer> limiter = RateLimiters.exponential(MS, MAX);
    for (int i = 0; i < 10_000; i++) {
      limiter.when(i);
    }
    assertEquals(10_000, ((TracksItems) limiter).trackedItems());
    for (int i = 0; i < 10_000; i++) {
      limiter.forget(i);
    }
    assertEquals(0, ((TracksItems) limiter).trackedItems());
  }

  @Test
  void expireAfterInactivity_dropsIdleItems_onTheInjectedClock() {
    RateLimiter<String> limiter = RateLimiters.exponentialBuilder(MS, MAX)
        .expireAfterInactivity(Duration.ofMinutes(10))
        .clock(clock)
        .build();
    limiter.when("idle");
    limiter.when("idle");
    clock.step(Duration.ofMinutes(9));
    limiter.when("busy");
    assertEquals(2, limiter.numRequeues("idle")); // reading is not activity ...

    clock.step(Duration.ofMinutes(2)); // ... so idle is 11 minutes idle now, busy 2

    assertEquals(1, ((TracksItems) limiter).trackedItems());
    assertEquals(0, limiter.numRequeues("idle"));
    assertEquals(1, limiter.numRequeues("busy"));
    assertEquals(MS, limiter.when("idle")); // starts over from base
    assertEquals(Duration.ofMillis(2), limiter.when("busy"));
  }

  @Test
  void expireAfterInactivity_keepsItemsThatKeepFailing() {
    RateLimiter<String> limiter = RateLimiters.fastSlowBuilder(MS, MAX, 2)
        .expireAfterInactivity(Duration.ofMinutes(10))
        .clock(clock)
        .build();
    for (int i = 0; i < 5; i++) {
      limiter.when("flaky");
      clock.step(Duration.ofMinutes(9));
    }
    assertEquals(5, limiter.numRequeues("flaky"));
    assertEquals(MAX, limiter.when("flaky"));
  }

  @Test
  void expiredPerItemBucket_comesBackFull() {
    RateLimiter<String> limiter = RateLimiters.perItemTokenBucketBuilder(1, 1)
        .expireAfterInactivity(Duration.ofSeconds(5))
        .clock(clock)
        .build();
    assertEquals(Duration.ZERO, limiter.when("a"));
    assertEquals(Duration.ofSeconds(1), limiter.when("a"));

    clock.step(Duration.ofSeconds(6));

    assertEquals(0, ((TracksItems) limiter).trackedItems());
    assertEquals(Duration.ZERO, limiter.when("a"));
  }

  @Test
  void boundsTogether_bothApply() {
    RateLimiter<Integer> limiter = RateLimiters.exponentialBuilder(MS, MAX)
        .maximumTrackedItems(50)
        .expireAfterInactivity(Duration.ofSeconds(30))
        .clock(clock)
        .build();
    for (int i = 0; i < 1_000; i++) {
      limiter.when(i);
    }
    assertTrue(((TracksItems) limiter).trackedItems() <= 50);

    clock.step(Duration.ofSeconds(31));

    assertEquals(0, ((TracksItems) limiter).trackedItems());
  }

  @Test
  void forget_dropsStateOfBoundedLimiter() {
    RateLimiter<String> limiter = RateLimiters.exponentialBuilder(MS, MAX)
        .maximumTrackedItems(10).clock(clock).build();
    limiter.when("a");
    limiter.when("a");
    limiter.forget("a");
    assertEquals(0, limiter.numRequeues("a"));
    assertEquals(MS, limiter.when("a"));
  }

  @Test
  void eachSetter_mayBeCalledOnce() {
    PerItemLimiterBuilder builder = RateLimiters.exponentialBuilder(MS, MAX)
        .maximumTrackedItems(10)
        .expireAfterInactivity(Duration.ofMinutes(1))
        .clock(clock);

    assertThrows(IllegalStateException.class, () -> builder.maximumTrackedItems(20));
    assertThrows(IllegalStateException.class,
        () -> builder.expireAfterInactivity(Duration.ofMinutes(2)));
    assertThrows(IllegalStateException.class, () -> builder.clock(new FakeClock()));
  }

  @Test
  void build_makesIndependentLimiters() {
    PerItemLimiterBuilder builder = RateLimiters.exponentialBuilder(MS, MAX);
    RateLimiter<String> first = builder.build();
    RateLimiter<String> second = builder.build();
    assertNotSame(first, second);

    first.when("a");
    first.when("a");

    assertEquals(MS, second.when("a"));
  }
}
