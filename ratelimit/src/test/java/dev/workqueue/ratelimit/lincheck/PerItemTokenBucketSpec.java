package dev.workqueue.ratelimit.lincheck;

import java.util.HashMap;
import java.util.Map;

/**
 * The sequential meaning of a per-item token bucket whose clock does not move: one
 * {@link TokenBucketSpec} per item, made on the item's first call and dropped by
 * {@code forget}; {@code numRequeues} is always 0.
 */
public class PerItemTokenBucketSpec {
  private final Map<Integer, Long> calls = new HashMap<>();

  public long when(int key) {
    long n = calls.merge(key, 1L, Long::sum);
    return Math.max(0, n - TokenBucketSpec.BURST) * TokenBucketSpec.INTERVAL_NANOS;
  }

  public void forget(int key) {
    calls.remove(key);
  }

  public int numRequeues(int key) {
    return 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PerItemTokenBucketSpec s && calls.equals(s.calls);
  }

  @Override
  public int hashCode() {
    return calls.hashCode();
  }
}
