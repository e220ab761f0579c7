package dev.workqueue.testing;

import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link MetricsProvider} that keeps every value in memory so a test (or a demo's summary)
 * can read them back exactly: counters as counts, gauges as their last value, histograms as
 * the full list of observations. Keyed by queue name and metric name (the constants of
 * {@link MetricsProvider}); a controller's metrics are kept under the controller's name, with
 * the result of {@code reconcile_total} appended as {@code controller_runtime_reconcile_total{result=success}},
 * and a priority queue's depth by priority as {@code workqueue_depth{priority=5}} (see
 * {@link #depthWithPriority}).
 *
 * <p>Thread-safe. Histograms keep every observation: for tests and short demos, not for
 * production.
 */
public final class RecordingMetricsProvider implements MetricsProvider, ControllerMetricsProvider {
  private final Map<Key, AtomicLong> counters = new ConcurrentHashMap<>();
  private final Map<Key, AtomicLong> gauges = new ConcurrentHashMap<>();
  private final Map<Key, List<Double>> histograms = new ConcurrentHashMap<>();

  private record Key(String queue, String metric) {}

  /**
   * A counter recorded under {@code metric} for {@code queue}; shared with
   * {@link RecordingSchedulingMetricsProvider}, which stores its series here.
   *
   * @param metric the metric's name, such as {@link MetricsProvider#ADDS}
   * @param queue the queue's (or controller's) name
   * @return a counter that {@link #count} reads; every call for the same names shares it
   */
  Counter counter(String metric, String queue) {
    AtomicLong c = counters.computeIfAbsent(new Key(queue, metric), k -> new AtomicLong());
    return c::incrementAndGet;
  }

  /**
   * A gauge recorded under {@code metric} for {@code queue}; shared with
   * {@link RecordingSchedulingMetricsProvider}, which stores its series here.
   *
   * @param metric the metric's name, such as {@link MetricsProvider#DEPTH}
   * @param queue the queue's (or controller's) name
   * @return a gauge that {@link #value} reads; every call for the same names shares it
   */
  Gauge gauge(String metric, String queue) {
    AtomicLong g = gauges.computeIfAbsent(
        new Key(queue, metric), k -> new AtomicLong(Double.doubleToRawLongBits(0)));
    return v -> g.set(Double.doubleToRawLongBits(v));
  }

  /**
   * A histogram recorded under {@code metric} for {@code queue}; shared with
   * {@link RecordingSchedulingMetricsProvider}, which stores its series here.
   *
   * @param metric the metric's name, such as {@link MetricsProvider#WORK_DURATION}
   * @param queue the queue's (or controller's) name
   * @return a histogram that {@link #observations} reads; every call for the same names
   *     shares it
   */
  Histogram histogram(String metric, String queue) {
    List<Double> h = histograms.computeIfAbsent(
        new Key(queue, metric), k -> Collections.synchronizedList(new ArrayList<>()));
    return h::add;
  }

  /**
   * The count of counter {@code metric} of {@code queue}; 0 if never created.
   *
   * @param queue the queue's (or controller's) name
   * @param metric the metric's name, such as {@link MetricsProvider#ADDS}
   * @return how many times the counter was incremented so far
   */
  public long count(String queue, String metric) {
    AtomicLong c = counters.get(new Key(queue, metric));
    return c == null ? 0 : c.get();
  }

  /**
   * The last value of gauge {@code metric} of {@code queue}; 0 if never set.
   *
   * @param queue the queue's (or controller's) name
   * @param metric the metric's name, such as {@link MetricsProvider#DEPTH} or a
   *     {@link #depthWithPriority} name
   * @return the value last set
   */
  public double value(String queue, String metric) {
    AtomicLong g = gauges.get(new Key(queue, metric));
    return g == null ? 0 : Double.longBitsToDouble(g.get());
  }

  /**
   * A copy of the observations of histogram {@code metric} of {@code queue}, in order.
   *
   * @param queue the queue's (or controller's) name
   * @param metric the metric's name, such as {@link MetricsProvider#WORK_DURATION}
   * @return an immutable snapshot, oldest observation first; empty if none
   */
  public List<Double> observations(String queue, String metric) {
    List<Double> h = histograms.get(new Key(queue, metric));
    if (h == null) {
      return List.of();
    }
    synchronized (h) {
      return List.copyOf(h);
    }
  }

  /**
   * The {@code p}-quantile (0..1, nearest rank) of histogram {@code metric} of {@code queue},
   * or NaN if it has no observations.
   *
   * @param queue the queue's (or controller's) name
   * @param metric the metric's name, such as {@link MetricsProvider#QUEUE_DURATION}
   * @param p the quantile, from 0 (the smallest observation) to 1 (the largest)
   * @return the observation of nearest rank {@code max(1, ceil(p * n))}, or NaN
   * @throws IllegalArgumentException if {@code p} is not within [0, 1]
   */
  public double quantile(String queue, String metric, double p) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("p must be within [0, 1], was " + p);
    }
    List<Double> sorted = new ArrayList<>(observations(queue, metric));
    if (sorted.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  /**
   * The names of the queues any metric was created for, sorted.
   *
   * @return a new set of queue (and controller) names; later metrics do not change it
   */
  public java.util.SortedSet<String> queues() {
    java.util.SortedSet<String> names = new java.util.TreeSet<>();
    for (Map<Key, ?> m : List.of(counters, gauges, histograms)) {
      m.keySet().forEach(k -> names.add(k.queue()));
    }
    return names;
  }

  @Override
  public Gauge newDepthMetric(String name) {
    return gauge(DEPTH, name);
  }

  @Override
  public Counter newAddsMetric(String name) {
    return counter(ADDS, name);
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return histogram(QUEUE_DURATION, name);
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return histogram(WORK_DURATION, name);
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return gauge(UNFINISHED_WORK, name);
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return gauge(LONGEST_RUNNING, name);
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return counter(RETRIES, name);
  }

  @Override
  public Gauge newDepthWithPriorityMetric(String name, String priority) {
    return gauge(depthWithPriority(priority), name);
  }

  /**
   * The metric name under which {@link #newDepthWithPriorityMetric} records {@code priority}:
   * {@code workqueue_depth{priority=5}}; read it with {@link #value}.
   *
   * @param priority the label value: a decimal priority, or
   *     {@link MetricsProvider#PRIORITY_OVERFLOW}
   * @return the metric name to pass to {@link #value}
   */
  public static String depthWithPriority(String priority) {
    return DEPTH + "{" + PRIORITY_LABEL + "=" + priority + "}";
  }

  @Override
  public Counter newReconcileTotal(String controller, String result) {
    return counter(RECONCILE_TOTAL + "{result=" + result + "}", controller);
  }

  @Override
  public Counter newReconcileErrors(String controller) {
    return counter(RECONCILE_ERRORS, controller);
  }

  @Override
  public Counter newTerminalReconcileErrors(String controller) {
    return counter(TERMINAL_RECONCILE_ERRORS, controller);
  }

  @Override
  public Counter newReconcilePanics(String controller) {
    return counter(RECONCILE_PANICS, controller);
  }

  @Override
  public Histogram newReconcileTime(String controller) {
    return histogram(RECONCILE_TIME, controller);
  }

  @Override
  public Gauge newActiveWorkers(String controller) {
    return gauge(ACTIVE_WORKERS, controller);
  }

  @Override
  public Gauge newMaxConcurrentReconciles(String controller) {
    return gauge(MAX_CONCURRENT_RECONCILES, controller);
  }

  /** Recorded under the ring's name, as if it were a queue's: {@code value(ring, ...)}. */
  @Override
  public Gauge newShardMembers(String ring) {
    return gauge(SHARD_MEMBERS, ring);
  }

  /** Recorded under the ring's name. */
  @Override
  public Gauge newShardKeysOwned(String ring) {
    return gauge(SHARD_KEYS_OWNED, ring);
  }

  /** Recorded under the ring's name. */
  @Override
  public Counter newShardHandOvers(String ring) {
    return counter(SHARD_HANDOVERS, ring);
  }

  /** Recorded under the ring's name. */
  @Override
  public Histogram newShardHandOverTime(String ring) {
    return histogram(SHARD_HANDOVER_TIME, ring);
  }

  /** Recorded under the Lease's name, as if it were a queue's: {@code value(lease, ...)}. */
  @Override
  public Gauge newLeaderElectionMasterStatus(String lease) {
    return gauge(LEADER_ELECTION_MASTER_STATUS, lease);
  }
}
