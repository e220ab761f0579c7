package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ExponentialFailureRateLimiterTest {
  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration MAX = Duration.ofSeconds(1);

  @Test
  void firstFiveCalls_doubleFromBase_andAreCounted() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);

    List<Duration> delays = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      delays.add(limiter.when("one"));
    }

    assertEquals(List.of(ms(1), ms(2), ms(4), ms(8), ms(16)), delays);
    assertEquals(5, limiter.numRequeues("one"));
  }

  @Test
  void items_areIndependent() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    limiter.when("one");
    limiter.when("one");

    assertEquals(ms(1), limiter.when("two"));
    assertEquals(ms(4), limiter.when("one"));
    assertEquals(3, limiter.numRequeues("one"));
    assertEquals(1, limiter.numRequeues("two"));
  }

  @Test
  void forget_resetsToBase() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    limiter.when("one");
    limiter.when("one");

    limiter.forget("one");

    assertEquals(0, limiter.numRequeues("one"));
    assertEquals(ms(1), limiter.when("one"));
  }

  @Test
  void exponential_capsAtMax() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    for (int i = 0; i < 10; i++) {
      limiter.when("one"); // 1 .. 512 ms
    }
    assertEquals(MAX, limiter.when("one")); // 1024 ms capped
    assertEquals(MAX, limiter.when("one"));
  }

  @Test
  void exponential_64thCall_returnsMaxNotBase() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    Duration last = null;
    for (int i = 1; i <= 64; i++) {
      last = limiter.when("one");
      assertFalse(last.isNegative(), "call " + i);
    }
    assertEquals(MAX, last);
    assertEquals(64, limiter.numRequeues("one"));
  }

  @Test
  void exponential_10000thCall_returnsMaxExactly() {
    RateLimiter<String> limiter = RateLimiters.exponential(Duration.ofNanos(1), MAX);
    Duration last = null;
    for (int i = 1; i <= 10_000; i++) {
      last = limiter.when("one");
      assertFalse(last.isNegative(), "call " + i);
      assertFalse(last.compareTo(MAX) > 0, "call " + i);
    }
    assertEquals(MAX, last);
  }

  @Test
  void hugeMax_saturatesAtMaxInsteadOfOverflowing() {
    Duration max = Duration.ofDays(365L * 10_000); // beyond a long of nanoseconds
    RateLimiter<String> limiter = RateLimiters.exponential(Duration.ofSeconds(1), max);
    Duration last = null;
    for (int i = 0; i < 200; i++) {
      last = limiter.when("one");
      assertFalse(last.isNegative());
    }
    assertEquals(max, last);
  }

  @Test
  void zeroBase_alwaysReturnsZero() {
    RateLimiter<String> limiter = RateLimiters.exponential(Duration.ZERO, MAX);
    for (int i = 0; i < 100; i++) {
      assertEquals(Duration.ZERO, limiter.when("one"));
    }
  }

  @Test
  void maxBelowBase_returnsMax() {
    RateLimiter<String> limiter = RateLimiters.exponential(Duration.ofSeconds(5), MAX);
    assertEquals(MAX, limiter.when("one"));
    assertEquals(MAX, limiter.when("one"));
  }

  @Test
  void defaultItemBased_isOneMillisecondToThousandSeconds() {
    RateLimiter<String> limiter = RateLimiters.defaultItemBasedRateLimiter();
    assertEquals(ms(1), limiter.when("one"));
    assertEquals(ms(2), limiter.when("one"));
    for (int i = 0; i < 30; i++) {
      limiter.when("one");
    }
    assertEquals(Duration.ofSeconds(1000), limiter.when("one"));
  }

  @Test
  void callsAfterMax_reuseTheSameDuration_noAllocationOfDelays() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    for (int i = 0; i < 20; i++) {
      limiter.when("one");
    }
    assertSame(limiter.when("one"), limiter.when("one"));
  }

  @Test
  void numRequeues_ofUnknownItem_isZeroAndTracksNothing() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    assertEquals(0, limiter.numRequeues("never-seen"));
    assertEquals(0, ((TracksItems) limiter).trackedItems());
  }

  @Test
  void nullItem_failsNamingItem() {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    NullPointerException e = assertThrows(NullPointerException.class, () -> limiter.when(null));
    assertEquals("item must not be null", e.getMessage());
  }

  @Test
  void concurrentFailuresOfOneItem_areEachCountedOnce() throws Exception {
    RateLimiter<String> limiter = RateLimiters.exponential(MS, MAX);
    int threads = 8;
    int callsEach = 5_000;
    CountDownLatch go = new CountDownLatch(1);
    ConcurrentHashMap<Duration, AtomicInteger> seen = new ConcurrentHashMap<>();
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread worker = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < callsEach; i++) {
          seen.computeIfAbsent(limiter.when("hot"), d -> new AtomicInteger()).incrementAndGet();
        }
      });
      worker.start();
      workers.add(worker);
    }
    go.countDown();
    for (Thread worker : workers) {
      worker.join(TimeUnit.SECONDS.toMillis(30));
    }

    assertEquals(threads * callsEach, limiter.numRequeues("hot"));
    for (int n = 0; n < 10; n++) { // 1, 2, 4 .. 512 ms: each handed out exactly once
      assertEquals(1, seen.get(ms(1L << n)).get(), "2^" + n + " ms");
    }
    assertEquals(threads * callsEach - 10, seen.get(MAX).get());
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
