package dev.workqueue.metrics;

/**
 * Creates the seven metrics of a named work queue; the names in the table are the Prometheus
 * names Go controllers export, so dashboards built for them carry over. A queue without a
 * name, or with {@link #noop()}, records nothing and schedules nothing.
 *
 * <table>
 *   <caption>Work queue metrics</caption>
 *   <tr><th>factory</th><th>name</th><th>meaning</th></tr>
 *   <tr><td>{@link #newDepthMetric}</td><td>{@code workqueue_depth}</td>
 *       <td>dirty items: queued, plus re-added while processing</td></tr>
 *   <tr><td>{@link #newAddsMetric}</td><td>{@code workqueue_adds_total}</td>
 *       <td>adds that made an item dirty (deduplicated adds do not count)</td></tr>
 *   <tr><td>{@link #newLatencyMetric}</td><td>{@code workqueue_queue_duration_seconds}</td>
 *       <td>from the add that made an item dirty to the {@code get} that took it</td></tr>
 *   <tr><td>{@link #newWorkDurationMetric}</td><td>{@code workqueue_work_duration_seconds}</td>
 *       <td>from {@code get} to {@code done}</td></tr>
 *   <tr><td>{@link #newUnfinishedWorkSecondsMetric}</td>
 *       <td>{@code workqueue_unfinished_work_seconds}</td>
 *       <td>sum of the ages of the items processing now, refreshed periodically</td></tr>
 *   <tr><td>{@link #newLongestRunningProcessorSecondsMetric}</td>
 *       <td>{@code workqueue_longest_running_processor_seconds}</td>
 *       <td>age of the oldest item processing now, refreshed periodically</td></tr>
 *   <tr><td>{@link #newRetriesMetric}</td><td>{@code workqueue_retries_total}</td>
 *       <td>delayed adds: every {@code addAfter}, so every {@code addRateLimited}</td></tr>
 * </table>
 *
 * <p>A {@link dev.workqueue.PriorityWorkQueue} also reports its depth by priority through
 * {@link #newDepthWithPriorityMetric} (controller-runtime's {@code workqueue_depth} with a
 * {@code priority} label); the plain depth gauge still carries the total.
 *
 * <p>Each factory is called once per queue, at build time, with the queue's name (the
 * priority depth factory once per queue and label, when the label is first needed).
 * Implementations must be thread-safe; the metrics they return are called while the queue
 * holds its lock, so they must be fast and must never block or call back into the queue.
 */
public interface MetricsProvider {
  String DEPTH = "workqueue_depth";
  String ADDS = "workqueue_adds_total";
  String QUEUE_DURATION = "workqueue_queue_duration_seconds";
  String WORK_DURATION = "workqueue_work_duration_seconds";
  String UNFINISHED_WORK = "workqueue_unfinished_work_seconds";
  String LONGEST_RUNNING = "workqueue_longest_running_processor_seconds";
  String RETRIES = "workqueue_retries_total";

  /** The label of {@link #newDepthWithPriorityMetric}'s series: the priority. */
  String PRIORITY_LABEL = "priority";

  /**
   * The {@code priority} label value under which a priority queue counts every priority past
   * its 25th distinct one (controller-runtime's placeholder, so dashboards carry over).
   */
  String PRIORITY_OVERFLOW = "exceeded_cardinality_limit";

  Gauge newDepthMetric(String name);

  Counter newAddsMetric(String name);

  Histogram newLatencyMetric(String name);

  Histogram newWorkDurationMetric(String name);

  Gauge newUnfinishedWorkSecondsMetric(String name);

  Gauge newLongestRunningProcessorSecondsMetric(String name);

  Counter newRetriesMetric(String name);

  /**
   * The depth of one priority of priority queue {@code name}: its dirty items (ready, or
   * re-added while processing) at that priority, which sum to {@link #newDepthMetric}'s value.
   * {@code priority} is the priority as a decimal number, or {@link #PRIORITY_OVERFLOW} for
   * every priority past the queue's 25th distinct one; a queue asks for each label once.
   * Exported under {@value #DEPTH} with a {@value #PRIORITY_LABEL} label, this is
   * controller-runtime's series; a binding that exports both should leave the total out of
   * that name (Prometheus rejects one name with two label sets). Default: records nothing, so
   * existing providers keep working.
   */
  default Gauge newDepthWithPriorityMetric(String name, String priority) {
    return Gauge.NOOP;
  }

  /** A provider that records nothing; queues using it do no metrics work at all. */
  static MetricsProvider noop() {
    return NoopMetricsProvider.INSTANCE;
  }
}
