package dev.workqueue.ratelimit.lincheck;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.LincheckRuns;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the per-item token bucket
 * ({@link RateLimiters#perItemTokenBucket(double, int, dev.workqueue.clock.Clock)}, 10 per
 * second with a burst of 2 per item), checked by Lincheck against
 * {@link PerItemTokenBucketSpec} on a {@link FakeClock} that does not move (see
 * {@link TokenBucketLincheckTest} for why): a bucket is made once per item however many
 * threads ask for it first, each call takes the next token of its item's bucket, and
 * {@code forget} drops the bucket so that the next call finds a full one.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:2")
public class PerItemTokenBucketLincheckTest {
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 50_000_000L);
  private final RateLimiter<Integer> limiter =
      RateLimiters.perItemTokenBucket(TokenBucketSpec.QPS, TokenBucketSpec.BURST, clock);

  /** The wait in nanoseconds. */
  @Operation
  public long when(@Param(name = "key") int key) {
    return limiter.when(key).toNanos();
  }

  @Operation
  public void forget(@Param(name = "key") int key) {
    limiter.forget(key);
  }

  @Operation
  public int numRequeues(@Param(name = "key") int key) {
    return limiter.numRequeues(key);
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(PerItemTokenBucketSpec.class, 1, 30)
        .check(getClass());
  }

  @Test
  void stress() {
    LincheckRuns.stress(PerItemTokenBucketSpec.class, 3, 150)
        .check(getClass());
  }
}
