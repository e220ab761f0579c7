package dev.workqueue.benchmarks;

import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler that tags every iteration with the machine's cross-core latency while it ran
 * ({@link CrossCoreProbe}): the secondary results {@code hostmode.near} and {@code hostmode.far}
 * count the probe's bursts of each kind in the iteration (about ten a second). The report
 * compares contenders within one mode ({@code JmhResults}: an iteration whose bursts were all
 * near counts as near, all far as far, a mix as neither).
 *
 * <p>Use: {@code -prof dev.workqueue.benchmarks.HostModeProfiler} ({@code benchmarks/run.sh}
 * adds it to every run).
 */
public final class HostModeProfiler implements InternalProfiler {
  @Override
  public String getDescription() {
    return "cross-core round-trip mode (near/far) of each iteration";
  }

  @Override
  public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    CrossCoreProbe.shared().takeCounts(); // starts the probe, forgets what came before
  }

  @Override
  public Collection<? extends Result<?>> afterIteration(BenchmarkParams benchmarkParams,
      IterationParams iterationParams, IterationResult result) {
    long[] c = CrossCoreProbe.shared().takeCounts();
    return List.of(
        new ScalarResult("hostmode.near", c[0], "bursts", AggregationPolicy.SUM),
        new ScalarResult("hostmode.far", c[1], "bursts", AggregationPolicy.SUM));
  }
}
