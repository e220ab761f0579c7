package dev.workqueue.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

/**
 * Lateness under saturation (PERF.md: "1 M/s due"): a producer adds items due {@value
 * #DELAY_MICROS} µs ahead on a schedule of 1 M/s (in bursts of up to 64; when it falls more than
 * a delay behind it drops the debt, so a queue slower than that is fed as fast as it takes),
 * held to {@value LatenessRig#MAX_IN_FLIGHT} items in flight; a consumer takes them. Where the
 * consumer cannot keep up, lateness is queueing: up to the in-flight bound ÷ its rate. <b>The figures are the secondary results {@code p50_us},
 * {@code p99_us}</b> (µs) and {@code delivered}; {@code saturated_consume} is the rate reached.
 * Same rig as {@link LatenessBenchmark}, no far-future backlog.
 *
 * <p>Run: {@code benchmarks/run.sh quick SaturatedLatenessBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SaturatedLatenessBenchmark extends LatenessScenario {
  static final long DELAY_MICROS = 100;
  static final Duration DELAY = Duration.ofNanos(DELAY_MICROS * 1000);
  static final long DELAY_NANOS = DELAY.toNanos();
  /** One item every this many ns: 1 M/s. */
  static final long PERIOD_NANOS = 1_000;

  @Override
  int pending() {
    return 0;
  }

  @Benchmark
  @Group("saturated")
  @GroupThreads(1)
  public void saturated_produce(Control control) {
    if (produce(DELAY, DELAY_NANOS, PERIOD_NANOS) == 0) {
      Thread.yield();
    }
  }

  @Benchmark
  @Group("saturated")
  @GroupThreads(1)
  public boolean saturated_consume(Control control, LatenessRig.Lateness out)
      throws InterruptedException {
    return consume(control, out);
  }
}
