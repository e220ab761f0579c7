package dev.workqueue.ratelimit.lincheck;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/**
 * {@link ExponentialLincheckTest} on bounded per-item state: a Caffeine cache (maximum 100
 * items, expiry after an hour of inactivity) on a {@link FakeClock} that does not move, so
 * nothing is evicted and the limiter must behave exactly as {@link ExponentialSpec} says. This
 * checks that the bounded path (the cache's atomic {@code compute}, the quiet read of
 * {@code numRequeues}, {@code invalidate} for {@code forget}) is as atomic as the unbounded
 * map; that eviction bounds the state is checked by {@code PerItemLimiterBuilderTest}.
 */
@Tag("lincheck")
public class BoundedExponentialLincheckTest extends ExponentialLincheckTest {
  @Override
  RateLimiter<Integer> newLimiter() {
    return RateLimiters.exponentialBuilder(ExponentialSpec.BASE, ExponentialSpec.MAX)
        .maximumTrackedItems(100)
        .expireAfterInactivity(Duration.ofHours(1))
        .clock(new FakeClock())
        .build();
  }

  @Override
  int modelCheckingIterations() {
    return 1;
  }

  /** Caffeine's code paths make each invocation slow to model-check; the stress run is full. */
  @Override
  int modelCheckingInvocations() {
    return 20;
  }
}
