package dev.workqueue.ratelimit.lincheck;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The sequential meaning of the per-item exponential back-off: a count per item since it was
 * last forgotten; the {@code n}-th call (from 1) returns {@code BASE * 2^(n-1)}, at most
 * {@code MAX}.
 */
public class ExponentialSpec {
  static final Duration BASE = Duration.ofMillis(1);
  static final Duration MAX = Duration.ofMillis(4);

  private final Map<Integer, Integer> counts = new HashMap<>();

  public long when(int key) {
    int n = counts.merge(key, 1, Integer::sum);
    long delay = BASE.toNanos();
    for (int i = 1; i < n && delay < MAX.toNanos(); i++) {
      delay *= 2;
    }
    return Math.min(delay, MAX.toNanos());
  }

  public void forget(int key) {
    counts.remove(key);
  }

  public int numRequeues(int key) {
    return counts.getOrDefault(key, 0);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExponentialSpec s && counts.equals(s.counts);
  }

  @Override
  public int hashCode() {
    return counts.hashCode();
  }
}
