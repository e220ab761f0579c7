package dev.workqueue.benchmarks;

import java.util.Arrays;

/**
 * A log-linear histogram of lateness in nanoseconds, written by one thread: values below
 * {@value #LINEAR} ns each have a bucket; above, every power of two is split into {@value
 * #SUB} buckets (≤ 1.6% relative error, 16 ns at 1 µs, 0.8 µs at 50 µs). Values up to 2^40 ns
 * (18 min) are kept; larger ones land in the last bucket. Negative lateness (a delivery before
 * the due time) counts as 0 and is counted in {@link #early}. No allocation after construction.
 */
final class LatenessHistogram {
  private static final int SUB_BITS = 6;
  private static final int SUB = 1 << SUB_BITS;
  private static final int LINEAR = 2 * SUB; // 128 ns, one bucket each
  private static final int MAX_EXP = 40;

  private final long[] counts = new long[LINEAR + (MAX_EXP - SUB_BITS) * SUB];
  private long total;
  private long early;

  void record(long latenessNanos) {
    if (latenessNanos < 0) {
      early++;
      latenessNanos = 0;
    }
    counts[index(latenessNanos)]++;
    total++;
  }

  private int index(long v) {
    if (v < LINEAR) {
      return (int) v;
    }
    int exp = 63 - Long.numberOfLeadingZeros(v); // >= SUB_BITS + 1
    if (exp >= MAX_EXP) {
      return counts.length - 1;
    }
    int sub = (int) (v >>> (exp - SUB_BITS)) & (SUB - 1);
    return LINEAR + (exp - SUB_BITS - 1) * SUB + sub;
  }

  /** The middle of bucket {@code i}, in ns. */
  private static double value(int i) {
    if (i < LINEAR) {
      return i;
    }
    int k = i - LINEAR;
    int exp = k / SUB + SUB_BITS + 1;
    long sub = k % SUB;
    long width = 1L << (exp - SUB_BITS);
    long low = (1L << exp) + sub * width;
    return low + width / 2.0;
  }

  /** The {@code q}-quantile (0 < q ≤ 1) in ns, NaN when empty. */
  double quantileNanos(double q) {
    if (total == 0) {
      return Double.NaN;
    }
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return value(i);
      }
    }
    return value(counts.length - 1);
  }

  long total() {
    return total;
  }

  long early() {
    return early;
  }

  void reset() {
    Arrays.fill(counts, 0);
    total = 0;
    early = 0;
  }
}
