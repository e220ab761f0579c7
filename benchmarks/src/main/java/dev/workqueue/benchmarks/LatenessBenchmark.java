package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * Lateness of delayed items (delivery time − due time, PERF.md), with {@code pending} far-future
 * items (due in 1–2 hours) in the queue besides: 0 or 1 M. <b>The figures are the secondary
 * results {@code p50_us} and {@code p99_us}</b> (µs, per iteration; the report takes their
 * median over iterations) and {@code delivered} (items recorded); the primary score is only the
 * rate at which JMH called the methods. (JMH's own summary table shows these counters summed
 * over the iterations; its per-iteration lines and the JSON's percentiles are per iteration.)
 *
 * <ul>
 *   <li>{@code sparse}: one thread adds one item due 1 ms ahead, waits for it, and so on: one
 *       item at a time.
 *   <li>{@code rate100k}: a producer adds items due 1 ms ahead at 100 k/s (on a schedule of one
 *       every 10 µs, sleeping between bursts); a consumer takes them.
 * </ul>
 *
 * <p>The queue (and its backlog) is built once per trial; what is in flight at the end of an
 * iteration is drained before the next. Queues: {@code toolkit}, {@code delayqueue} and
 * {@code peer}; see {@link DelayingContender} for how the peer is kept from dropping items.
 * Saturation is {@link SaturatedLatenessBenchmark}.
 *
 * <p>Run: {@code benchmarks/run.sh quick LatenessBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = "-Xmx3g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class LatenessBenchmark extends LatenessScenario {
  static final Duration DELAY = Duration.ofMillis(1);
  static final long DELAY_NANOS = DELAY.toNanos();
  /** One item every this many ns: 100 k/s. */
  static final long PERIOD_NANOS = 10_000;

  @Param({"0", "1000000"})
  public int pending;

  @Override
  int pending() {
    return pending;
  }

  @Benchmark
  @Group("sparse")
  @GroupThreads(1)
  public void sparse(Control control, LatenessRig.Lateness out) throws InterruptedException {
    if (control.stopMeasurement) {
      return;
    }
    rig.add(DELAY, DELAY_NANOS);
    consume(control, out);
  }

  @Benchmark
  @Group("rate100k")
  @GroupThreads(1)
  public void rate100k_produce(Control control) {
    if (produce(DELAY, DELAY_NANOS, PERIOD_NANOS) == 0) {
      LockSupport.parkNanos(PERIOD_NANOS);
    }
  }

  @Benchmark
  @Group("rate100k")
  @GroupThreads(1)
  public void rate100k_consume(Control control, LatenessRig.Lateness out)
      throws InterruptedException {
    consume(control, out);
  }
}
