package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.common.testing.NullPointerTester;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RateLimitersTest {
  private static final Duration MS = Duration.ofMillis(1);
  private static final Duration NEGATIVE = Duration.ofNanos(-1);

  // ---- the defaults ----------------------------------------------------------------------

  @Test
  void defaultController_101stImmediateCall_waits100ms() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(clock);

    for (int i = 1; i <= 100; i++) {
      assertEquals(Duration.ofMillis(5), limiter.when("item-" + i), "call " + i);
    }
    assertEquals(Duration.ofMillis(100), limiter.when("item-101"));
  }

  @Test
  void defaultController_refillsTenPerSecond_notPerMinute() {
    FakeClock clock = new FakeClock();
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(clock);
    for (int i = 1; i <= 101; i++) {
      limiter.when("item-" + i); // 100 from the burst, one in debt
    }

    clock.step(Duration.ofSeconds(1)); // 10 tokens earned, one of them already owed

    for (int i = 1; i <= 9; i++) {
      assertEquals(Duration.ofMillis(5), limiter.when("next-" + i), "call " + i);
    }
    assertEquals(Duration.ofMillis(100), limiter.when("next-10"));
  }

  @Test
  void defaultController_19thFailureOfOneItem_waits1000s() {
    RateLimiter<String> limiter = RateLimiters.defaultControllerRateLimiter(new FakeClock());
    Duration d = null;
    for (int i = 1; i <= 19; i++) {
      d = limiter.when("one");
      if (i == 18) {
        assertEquals(Duration.ofMillis(5).multipliedBy(1 << 17), d); // 655.36 s
      }
    }
    assertEquals(Duration.ofSeconds(1000), d);
    assertEquals(19, limiter.numRequeues("one"));
    limiter.forget("one");
    assertEquals(0, limiter.numRequeues("one"));
  }

  @Test
  void defaultLimiters_onTheSystemClock_canBeMade() {
    assertEquals(Duration.ofMillis(5), RateLimiters.defaultControllerRateLimiter().when("x"));
    assertEquals(MS, RateLimiters.defaultItemBasedRateLimiter().when("x"));
    assertEquals(Duration.ZERO, RateLimiters.tokenBucket(1, 1).when("x"));
    assertEquals(Duration.ZERO, RateLimiters.perItemTokenBucket(1, 1).when("x"));
  }

  // ---- arguments -------------------------------------------------------------------------

  static Stream<Arguments> invalidArguments() {
    RateLimiter<Object> any = RateLimiters.exponential(MS, MS);
    Clock clock = new FakeClock();
    return Stream.of(
        bad("qps", () -> RateLimiters.tokenBucket(Double.NaN, 1, clock)),
        bad("qps", () -> RateLimiters.tokenBucket(-1, 1, clock)),
        bad("qps", () -> RateLimiters.tokenBucket(Double.NEGATIVE_INFINITY, 1)),
        bad("burst", () -> RateLimiters.tokenBucket(1, -1, clock)),
        bad("qps", () -> RateLimiters.perItemTokenBucket(Double.NaN, 1, clock)),
        bad("burst", () -> RateLimiters.perItemTokenBucketBuilder(1, -1)),
        bad("base", () -> RateLimiters.exponential(NEGATIVE, MS)),
        bad("max", () -> RateLimiters.exponential(MS, NEGATIVE)),
        bad("fast", () -> RateLimiters.fastSlow(NEGATIVE, MS, 1)),
        bad("slow", () -> RateLimiters.fastSlow(MS, NEGATIVE, 1)),
        bad("maxFastAttempts", () -> RateLimiters.fastSlow(MS, MS, -1)),
        bad("limiters", () -> RateLimiters.maxOf()),
        bad("limiters", () -> RateLimiters.maxOf(List.of())),
        bad("maxWait", () -> RateLimiters.withMaxWait(any, NEGATIVE)),
        bad("maxFactor", () -> RateLimiters.withJitter(any, -0.1)),
        bad("maxFactor", () -> RateLimiters.withJitter(any, Double.NaN)),
        bad("maxFactor", () -> RateLimiters.withJitter(any, Double.POSITIVE_INFINITY)),
        bad("maximumTrackedItems", () -> RateLimiters.exponentialBuilder(MS, MS).maximumTrackedItems(0)),
        bad("inactivity", () -> RateLimiters.exponentialBuilder(MS, MS).expireAfterInactivity(Duration.ZERO)),
        bad("inactivity", () -> RateLimiters.fastSlowBuilder(MS, MS, 1).expireAfterInactivity(NEGATIVE)));
  }

  private static Arguments bad(String name, Executable construction) {
    return Arguments.of(name, construction);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("invalidArguments")
  void invalidArgument_failsAtConstruction_namingIt(String name, Executable construction) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, construction);
    assertTrue(e.getMessage().startsWith(name + " "), e.getMessage());
  }

  static Stream<Arguments> nullArguments() {
    RateLimiter<Object> any = RateLimiters.exponential(MS, MS);
    return Stream.of(
        bad("clock", () -> RateLimiters.tokenBucket(1, 1, null)),
        bad("clock", () -> RateLimiters.perItemTokenBucket(1, 1, null)),
        bad("clock", () -> RateLimiters.defaultControllerRateLimiter(null)),
        bad("base", () -> RateLimiters.exponential(null, MS)),
        bad("max", () -> RateLimiters.exponentialBuilder(MS, null)),
        bad("fast", () -> RateLimiters.fastSlow(null, MS, 1)),
        bad("slow", () -> RateLimiters.fastSlow(MS, null, 1)),
        bad("limiters", () -> RateLimiters.maxOf((RateLimiter<Object>[]) null)),
        bad("limiters", () -> RateLimiters.maxOf((Collection<RateLimiter<Object>>) null)),
        bad("limiters element", () -> RateLimiters.maxOf(any, null)),
        bad("inner", () -> RateLimiters.withMaxWait(null, MS)),
        bad("maxWait", () -> RateLimiters.withMaxWait(any, null)),
        bad("inner", () -> RateLimiters.withJitter(null, 0.1)),
        bad("random", () -> RateLimiters.withJitter(any, 0.1, null)),
        bad("inner", () -> RateLimiters.withFullJitter(null)),
        bad("random", () -> RateLimiters.withFullJitter(any, null)),
        bad("clock", () -> RateLimiters.exponentialBuilder(MS, MS).clock(null)),
        bad("inactivity", () -> RateLimiters.exponentialBuilder(MS, MS).expireAfterInactivity(null)));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("nullArguments")
  void nullArgument_failsAtConstruction_namingIt(String name, Executable construction) {
    NullPointerException e = assertThrows(NullPointerException.class, construction);
    assertEquals(name + " must not be null", e.getMessage());
  }

  @Test
  void everyPublicMethod_rejectsNulls() {
    NullPointerTester tester = new NullPointerTester()
        .setDefault(Duration.class, MS)
        .setDefault(Clock.class, new FakeClock())
        .setDefault(RateLimiter.class, RateLimiters.exponential(MS, MS))
        .setDefault(DoubleSupplier.class, () -> 0.5);
    tester.testAllPublicStaticMethods(RateLimiters.class);
    tester.testAllPublicInstanceMethods(RateLimiters.exponentialBuilder(MS, MS));
  }

  static Stream<Arguments> everyLimiter() {
    FakeClock clock = new FakeClock();
    RateLimiter<Object> exponential = RateLimiters.exponential(MS, MS);
    return Stream.of(
        Arguments.of("tokenBucket", RateLimiters.tokenBucket(1, 1, clock)),
        Arguments.of("perItemTokenBucket", RateLimiters.perItemTokenBucket(1, 1, clock)),
        Arguments.of("exponential", exponential),
        Arguments.of("bounded exponential",
            RateLimiters.exponentialBuilder(MS, MS).maximumTrackedItems(10).clock(clock).build()),
        Arguments.of("fastSlow", RateLimiters.fastSlow(MS, MS, 1)),
        Arguments.of("maxOf", RateLimiters.maxOf(exponential)),
        Arguments.of("withMaxWait", RateLimiters.withMaxWait(exponential, MS)),
        Arguments.of("withJitter", RateLimiters.withJitter(exponential, 0.5)),
        Arguments.of("withFullJitter", RateLimiters.withFullJitter(exponential)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyLimiter")
  void nullItem_isRejected_byEveryMethodOfEveryLimiter(String kind, RateLimiter<Object> limiter) {
    for (Executable call : List.<Executable>of(
        () -> limiter.when(null), () -> limiter.forget(null), () -> limiter.numRequeues(null))) {
      NullPointerException e = assertThrows(NullPointerException.class, call);
      assertEquals("item must not be null", e.getMessage());
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("everyLimiter")
  void forgetAndNumRequeuesOfUnknownItems_areNoOps_andTheLimiterKeepsWorking(
      String kind, RateLimiter<Object> limiter) {
    limiter.forget("never-seen");
    assertEquals(0, limiter.numRequeues("never-seen"));
    Duration first = limiter.when("x");
    assertTrue(!first.isNegative(), kind + ": " + first);
    int requeues = limiter.numRequeues("x");
    limiter.forget("other-never-seen");
    assertEquals(requeues, limiter.numRequeues("x"), "forgetting another item left x alone");
  }

  // ---- allocation ------------------------------------------------------------------------

  @Test
  void numRequeuesOfUnknownItems_andZeroDelayTokens_allocateNothing() throws Exception {
    RateLimiter<String> exponential = RateLimiters.exponential(MS, Duration.ofSeconds(1));
    RateLimiter<String> bounded = RateLimiters.exponentialBuilder(MS, Duration.ofSeconds(1))
        .maximumTrackedItems(10).clock(new FakeClock()).build();
    RateLimiter<String> bucket = RateLimiters.tokenBucket(1, Integer.MAX_VALUE, new FakeClock());
    int calls = 200_000;
    Runnable work = () -> {
      for (int i = 0; i < calls; i++) {
        exponential.numRequeues("unknown");
        bounded.numRequeues("unknown");
        bucket.when("x");
      }
    };
    work.run(); // warm up

    long before = allocatedBytesOfThisThread();
    work.run();
    long allocated = allocatedBytesOfThisThread() - before;

    // Any allocation per call would be at least 16 bytes times 600,000 calls; allow the
    // measurement's own few bytes.
    assertTrue(allocated < 10_000, "allocated " + allocated + " bytes");
  }

  /**
   * HotSpot's per-thread allocation counter, reached by reflection: the test sources are
   * compiled into the module, which does not read java.management.
   */
  private static long allocatedBytesOfThisThread() throws Exception {
    Object threads = Class.forName("java.lang.management.ManagementFactory")
        .getMethod("getThreadMXBean").invoke(null);
    Class<?> hotspot;
    try {
      hotspot = Class.forName("com.sun.management.ThreadMXBean");
    } catch (ClassNotFoundException e) {
      hotspot = null;
    }
    assumeTrue(hotspot != null && hotspot.isInstance(threads), "no allocation counter");
    Method allocated = hotspot.getMethod("getThreadAllocatedBytes", long.class);
    long bytes = (long) allocated.invoke(threads, Thread.currentThread().getId());
    assumeTrue(bytes >= 0, "allocation counter disabled");
    return bytes;
  }
}
