package dev.workqueue.ratelimit.lincheck;

/**
 * The sequential meaning of a token bucket whose clock does not move: it starts full with
 * {@link #BURST} tokens, and the {@code n}-th call overall (counting from 1) takes the
 * {@code n}-th token, which exists {@code max(0, n - BURST)} intervals from now. The item does
 * not matter; {@code forget} changes nothing and {@code numRequeues} is always 0.
 */
public class TokenBucketSpec {
  static final double QPS = 10;
  static final int BURST = 2;
  static final long INTERVAL_NANOS = 100_000_000L;

  private long calls;

  public long when(int key) {
    calls++;
    return Math.max(0, calls - BURST) * INTERVAL_NANOS;
  }

  public void forget(int key) {}

  public int numRequeues(int key) {
    return 0;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TokenBucketSpec s && calls == s.calls;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(calls);
  }
}
