package dev.workqueue.benchmarks;

import com.google.common.util.concurrent.RateLimiter;
import java.util.concurrent.TimeUnit;
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
 * Baseline for the token bucket's {@code when}: Guava's {@code RateLimiter.tryAcquire()} at 1
 * and 2 threads sharing one limiter. The rate (10⁹ permits/s) is high enough that nearly every
 * call takes a permit, so this measures the bookkeeping path, not the fast refusal.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar TokenBucketBenchmark -prof gc}, or
 * {@code benchmarks/run.sh quick TokenBucketBenchmark}. The toolkit's bucket will be further
 * methods here, at the same thread counts.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class TokenBucketBenchmark {
  private final RateLimiter guava = RateLimiter.create(1e9);
  /** 1e9 per second: every call takes a token through the bucket's compare-and-set path. */
  private final dev.workqueue.ratelimit.RateLimiter<Object> toolkit =
      dev.workqueue.ratelimit.RateLimiters.tokenBucket(1e9, 100);
  private final io.kubernetes.client.extended.workqueue.ratelimiter.RateLimiter<Object> peer =
      new io.kubernetes.client.extended.workqueue.ratelimiter.BucketRateLimiter<>(
          100, 1_000_000_000L, java.time.Duration.ofSeconds(1));
  private final Object item = "item";

  @Benchmark
  @Threads(1)
  public boolean guavaTryAcquire_1t() {
    return guava.tryAcquire();
  }

  @Benchmark
  @Threads(2)
  public boolean guavaTryAcquire_2t() {
    return guava.tryAcquire();
  }

  @Benchmark
  @Threads(1)
  public Object toolkitWhen_1t() {
    return toolkit.when(item);
  }

  @Benchmark
  @Threads(2)
  public Object toolkitWhen_2t() {
    return toolkit.when(item);
  }

  @Benchmark
  @Threads(1)
  public Object peerWhen_1t() {
    return peer.when(item);
  }

  @Benchmark
  @Threads(2)
  public Object peerWhen_2t() {
    return peer.when(item);
  }
}
