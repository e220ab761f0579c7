package dev.workqueue.ratelimit.lincheck;

import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.LincheckRuns;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the per-item exponential back-off
 * ({@link RateLimiters#exponential(java.time.Duration, java.time.Duration)}, 1 ms doubling to
 * 4 ms), checked by Lincheck against {@link ExponentialSpec}: concurrent failures of one item
 * get successive delays (none counted twice, none lost), {@code forget} starts the item over,
 * {@code numRequeues} counts the calls since. Keys come from a small set so that threads
 * collide on them. {@link BoundedExponentialLincheckTest} runs the same operations on the
 * bounded (Caffeine) state.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class ExponentialLincheckTest {
  private final RateLimiter<Integer> limiter = newLimiter();

  /** The limiter under test: {@code ExponentialSpec.BASE} doubling to {@code MAX}. */
  RateLimiter<Integer> newLimiter() {
    return RateLimiters.exponential(ExponentialSpec.BASE, ExponentialSpec.MAX);
  }

  /** The delay in nanoseconds. */
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

  /** Model-checking iterations at scale 1: the bounded state's code paths are longer. */
  int modelCheckingIterations() {
    return 3;
  }

  /** Model-checking invocations per iteration. */
  int modelCheckingInvocations() {
    return 60;
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(
            ExponentialSpec.class, modelCheckingIterations(), modelCheckingInvocations())
        .check(getClass());
  }

  @Test
  void stress() {
    LincheckRuns.stress(ExponentialSpec.class, 5, 200)
        .check(getClass());
  }
}
