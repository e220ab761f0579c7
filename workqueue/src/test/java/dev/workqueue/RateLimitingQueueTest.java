package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What is specific to the rate-limiting queue: how it asks its limiter (per-item back-off,
 * {@code forget}, {@code numRequeues}, a shared limiter, no call after shutdown). The behaviour
 * it shares with every queue kind, null arguments of {@code addRateLimited}, {@code forget} and
 * {@code numRequeues} among it, is in {@link QueueContractTest} ({@link
 * QueueKind#RATE_LIMITING}).
 */
class RateLimitingQueueTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final RateLimitingQueue<String> q = WorkQueue.<String>builder()
      .clock(clock).name("r").metricsProvider(metrics)
      .buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1)));

  private List<String> drainNow() throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (Optional<String> n = q.poll(Duration.ZERO); n.isPresent(); n = q.poll(Duration.ZERO)) {
      out.add(n.get());
      q.done(n.get());
    }
    return out;
  }

  @Test
  void exponential_readyAtNowPlus1msThen2ms_numRequeues2() throws Exception {
    q.addRateLimited("one");
    assertEquals(1, q.waitingCount());
    clock.stepMillis(1);
    assertEquals(List.of("one"), drainNow(), "ready at now + 1 ms");

    q.addRateLimited("one");
    clock.stepMillis(1);
    assertEquals(List.of(), drainNow(), "second retry waits 2 ms");
    clock.stepMillis(1);
    assertEquals(List.of("one"), drainNow());
    assertEquals(2, q.numRequeues("one"));
    assertEquals(2, metrics.count("r", MetricsProvider.RETRIES));
  }

  @Test
  void backOff_isPerItem_andResetByForget() throws Exception {
    q.addRateLimited("one");
    q.addRateLimited("one"); // waits: keeps the earlier time, but counts a requeue
    q.addRateLimited("two");
    assertEquals(2, q.numRequeues("one"));
    assertEquals(1, q.numRequeues("two"));
    clock.stepMillis(1);
    assertEquals(List.of("one", "two"), drainNow());
    q.forget("one");
    assertEquals(0, q.numRequeues("one"));
    assertEquals(1, q.numRequeues("two"));
    q.addRateLimited("one");
    clock.stepMillis(1);
    assertEquals(List.of("one"), drainNow(), "back to 1 ms after forget");
  }

  @Test
  void addRateLimited_afterShutdown_isIgnored_andDoesNotAskTheLimiter() throws Exception {
    q.shutDown();
    q.addRateLimited("late");
    assertEquals(0, q.numRequeues("late"));
    assertEquals(0, q.waitingCount());
  }

  @Test
  void sharedLimiter_sharesCounters() {
    RateLimiter<String> shared = RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
    RateLimitingQueue<String> a = WorkQueue.<String>builder().clock(clock).buildRateLimiting(shared);
    RateLimitingQueue<String> b = WorkQueue.<String>builder().clock(clock).buildRateLimiting(shared);
    a.addRateLimited("k");
    assertEquals(1, b.numRequeues("k"));
  }

  @Test
  void builder_rejectsANullLimiter() {
    assertEquals("limiter must not be null", assertThrows(NullPointerException.class,
        () -> WorkQueue.<String>builder().buildRateLimiting(null)).getMessage());
  }
}
