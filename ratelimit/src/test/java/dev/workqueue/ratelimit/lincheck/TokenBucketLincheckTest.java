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
 * Linearizability of {@link RateLimiters#tokenBucket(double, int, dev.workqueue.clock.Clock)},
 * checked by Lincheck against {@link TokenBucketSpec}: 10 per second (one token per 100 ms)
 * with a burst of 2, on a {@link FakeClock} that does not move during a scenario. Whatever the
 * interleaving of the compare-and-set loops, the waits handed out must be those of some
 * order of the calls: two at zero, then 100 ms, 200 ms, ... with no token given twice and
 * none skipped. The clock reads just below {@link Long#MAX_VALUE}, so the bucket's
 * {@code fullAt} wraps: an overflow in its arithmetic would show as a wrong wait.
 *
 * <p>Time is frozen because a token bucket reads the clock once, at the start of a call, and
 * a call that read the clock before a concurrent step is answered from its own reading (as Go's
 * {@code rate.Limiter} is): with time moving in the middle of a scenario there is no sequential
 * history to compare against. {@code TokenBucketStressTest} checks the bucket while the clock
 * moves, against the rate it promises instead.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class TokenBucketLincheckTest {
  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 50_000_000L);
  private final RateLimiter<Integer> limiter =
      RateLimiters.tokenBucket(TokenBucketSpec.QPS, TokenBucketSpec.BURST, clock);

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
    LincheckRuns.modelChecking(TokenBucketSpec.class, 10, 200)
        .threads(3)
        .actorsPerThread(2)
        .actorsBefore(1)
        .actorsAfter(1)
        .check(getClass());
  }

  @Test
  void stress() {
    LincheckRuns.stress(TokenBucketSpec.class, 5, 200)
        .actorsBefore(1)
        .actorsAfter(1)
        .check(getClass());
  }
}
