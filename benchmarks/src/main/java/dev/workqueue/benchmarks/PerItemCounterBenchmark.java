package dev.workqueue.benchmarks;

import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Baselines for the per-item limiter's hot path ({@code when(item)}: count one more failure of
 * this item): a {@code ConcurrentHashMap.compute} counter and a {@code HashMap} counter under
 * one {@code ReentrantLock}, over {@value #KEYS} keys, at 1 and 2 threads (the threads share
 * the map and the keys, as workers of one controller do).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PerItemCounterBenchmark}, or
 * {@code benchmarks/run.sh quick PerItemCounterBenchmark}. The toolkit's per-item limiter will
 * be further methods here, at the same thread counts.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class PerItemCounterBenchmark {
  static final int KEYS = 1024;
  private static final BiFunction<Integer, Integer, Integer> INCREMENT =
      (k, v) -> v == null ? 1 : v + 1;

  private final Integer[] keys = Keys.ring(KEYS);
  private final ConcurrentHashMap<Integer, Integer> concurrent = new ConcurrentHashMap<>();
  private final HashMap<Integer, Integer> locked = new HashMap<>();
  private final ReentrantLock lock = new ReentrantLock();
  /** The toolkit's per-item limiter (default, unbounded state) and the peer's. */
  private final dev.workqueue.ratelimit.RateLimiter<Integer> toolkit =
      dev.workqueue.ratelimit.RateLimiters.exponential(
          java.time.Duration.ofMillis(5), java.time.Duration.ofSeconds(1000));
  private final dev.workqueue.ratelimit.RateLimiter<Integer> toolkitBounded =
      dev.workqueue.ratelimit.RateLimiters.exponentialBuilder(
              java.time.Duration.ofMillis(5), java.time.Duration.ofSeconds(1000))
          .maximumTrackedItems(100_000).build();
  private final io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter<Integer> peer =
      new io.kubernetes.client.extended.workqueue.ratelimiter.ItemExponentialFailureRateLimiter<>(
          java.time.Duration.ofMillis(5), java.time.Duration.ofSeconds(1000));

  /** Each thread walks the keys from its own position. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) (Thread.currentThread().getId() * 389);

    int next() {
      return next++ & (KEYS - 1);
    }
  }

  @Benchmark
  @Threads(1)
  public Integer chmCompute_1t(Cursor cursor) {
    return concurrent.compute(keys[cursor.next()], INCREMENT);
  }

  @Benchmark
  @Threads(2)
  public Integer chmCompute_2t(Cursor cursor) {
    return concurrent.compute(keys[cursor.next()], INCREMENT);
  }

  @Benchmark
  @Threads(1)
  public Integer lockedHashMap_1t(Cursor cursor) {
    return lockedIncrement(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(2)
  public Integer lockedHashMap_2t(Cursor cursor) {
    return lockedIncrement(keys[cursor.next()]);
  }

  private Integer lockedIncrement(Integer key) {
    lock.lock();
    try {
      return locked.compute(key, INCREMENT);
    } finally {
      lock.unlock();
    }
  }

  @Benchmark
  @Threads(1)
  public Object toolkitWhen_1t(Cursor cursor) {
    return toolkit.when(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(2)
  public Object toolkitWhen_2t(Cursor cursor) {
    return toolkit.when(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(1)
  public Object toolkitBoundedWhen_1t(Cursor cursor) {
    return toolkitBounded.when(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(2)
  public Object toolkitBoundedWhen_2t(Cursor cursor) {
    return toolkitBounded.when(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(1)
  public Object peerWhen_1t(Cursor cursor) {
    return peer.when(keys[cursor.next()]);
  }

  @Benchmark
  @Threads(2)
  public Object peerWhen_2t(Cursor cursor) {
    return peer.when(keys[cursor.next()]);
  }
}
