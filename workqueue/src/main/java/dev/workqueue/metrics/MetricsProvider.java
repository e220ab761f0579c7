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
 * Every factory returns a no-op metric by default: a provider overrides the ones it publishes.
 * Implementations must be thread-safe; the metrics they return are called while the queue
 * holds its lock, so they must be fast and must never block or call back into the queue.
 */
public interface MetricsProvider {
  /** The name of {@link #newDepthMetric}'s gauge. */
  String DEPTH = "workqueue_depth";
  /** The name of {@link #newAddsMetric}'s counter. */
  String ADDS = "workqueue_adds_total";
  /** The name of {@link #newLatencyMetric}'s histogram. */
  String QUEUE_DURATION = "workqueue_queue_duration_seconds";
  /** The name of {@link #newWorkDurationMetric}'s histogram. */
  String WORK_DURATION = "workqueue_work_duration_seconds";
  /** The name of {@link #newUnfinishedWorkSecondsMetric}'s gauge. */
  String UNFINISHED_WORK = "workqueue_unfinished_work_seconds";
  /** The name of {@link #newLongestRunningProcessorSecondsMetric}'s gauge. */
  String LONGEST_RUNNING = "workqueue_longest_running_processor_seconds";
  /** The name of {@link #newRetriesMetric}'s counter. */
  String RETRIES = "workqueue_retries_total";

  /** The label of {@link #newDepthWithPriorityMetric}'s series: the priority. */
  String PRIORITY_LABEL = "priority";

  /**
   * The {@code priority} label value under which a priority queue counts every priority past
   * its 25th distinct one (controller-runtime's placeholder, so dashboards carry over).
   */
  String PRIORITY_OVERFLOW = "exceeded_cardinality_limit";

  /**
   * The depth of queue {@code name} ({@value #DEPTH}): its dirty items, queued or re-added
   * while processing. Set on every change, never incremented.
   *
   * @param name the queue's name, as given to its builder
   * @return the gauge, set to a count of items
   */
  default Gauge newDepthMetric(String name) {
    return Gauge.NOOP;
  }

  /**
   * The adds of queue {@code name} ({@value #ADDS}): one per add that made an item dirty;
   * an add merged into a pending round does not count.
   *
   * @param name the queue's name, as given to its builder
   * @return the counter
   */
  default Counter newAddsMetric(String name) {
    return Counter.NOOP;
  }

  /**
   * How long items of queue {@code name} waited ({@value #QUEUE_DURATION}): from the add that
   * made an item dirty to the {@code get} that took it.
   *
   * @param name the queue's name, as given to its builder
   * @return the histogram, observing seconds
   */
  default Histogram newLatencyMetric(String name) {
    return Histogram.NOOP;
  }

  /**
   * How long items of queue {@code name} were processed ({@value #WORK_DURATION}): from the
   * {@code get} that took an item to its {@code done}.
   *
   * @param name the queue's name, as given to its builder
   * @return the histogram, observing seconds
   */
  default Histogram newWorkDurationMetric(String name) {
    return Histogram.NOOP;
  }

  /**
   * The work in progress of queue {@code name} ({@value #UNFINISHED_WORK}): the sum of the
   * ages of the items processing now, refreshed every metrics update period.
   *
   * @param name the queue's name, as given to its builder
   * @return the gauge, set in seconds
   */
  default Gauge newUnfinishedWorkSecondsMetric(String name) {
    return Gauge.NOOP;
  }

  /**
   * The longest processing of queue {@code name} ({@value #LONGEST_RUNNING}): the age of the
   * oldest item processing now, refreshed every metrics update period.
   *
   * @param name the queue's name, as given to its builder
   * @return the gauge, set in seconds
   */
  default Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return Gauge.NOOP;
  }

  /**
   * The retries of queue {@code name} ({@value #RETRIES}): one per delayed add the queue
   * accepts ({@code addAfter}, {@code reschedule}, {@code addRateLimited}, a priority add with
   * a delay or the rate limiter), also when the delay turns out to be zero.
   *
   * @param name the queue's name, as given to its builder
   * @return the counter
   */
  default Counter newRetriesMetric(String name) {
    return Counter.NOOP;
  }

  /**
   * The depth of one priority of priority queue {@code name}: its dirty items (ready, or
   * re-added while processing) at that priority, which sum to {@link #newDepthMetric}'s value.
   * {@code priority} is the priority as a decimal number, or {@link #PRIORITY_OVERFLOW} for
   * every priority past the queue's 25th distinct one; a queue asks for each label once.
   * Exported under {@value #DEPTH} with a {@value #PRIORITY_LABEL} label, this is
   * controller-runtime's series; a binding that exports both should leave the total out of
   * that name (Prometheus rejects one name with two label sets). Default: records nothing, so
   * existing providers keep working.
   *
   * @param name the priority queue's name, as given to its builder
   * @param priority the label value: a decimal priority such as {@code "-100"}, or
   *     {@link #PRIORITY_OVERFLOW}
   * @return the gauge, set to a count of items
   */
  default Gauge newDepthWithPriorityMetric(String name, String priority) {
    return Gauge.NOOP;
  }

  /**
   * A provider that records nothing; queues using it do no metrics work at all.
   *
   * @return the shared no-op provider, the builders' default
   */
  static MetricsProvider noop() {
    return NoopMetricsProvider.INSTANCE;
  }
}
