package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.metrics.MetricsProvider;
import java.time.Duration;

/**
 * Builds work queues. Every setter checks its argument when called and returns this builder;
 * unset settings take the defaults listed on each setter.
 *
 * <pre>{@code
 * WorkQueue<String> queue = WorkQueue.<String>builder()
 *     .name("pods")                       // metrics are recorded for named queues only
 *     .metricsProvider(myProvider)
 *     .build();
 * }</pre>
 *
 * <p>Not thread-safe; a builder may build several queues, each independent (but a
 * {@link QueueStorage} instance must not be shared: set a fresh one before each build).
 *
 * @param <T> the item type
 */
public final class WorkQueueBuilder<T> {
  static final Duration DEFAULT_METRICS_UPDATE_PERIOD = Duration.ofMillis(500);

  String name;
  Clock clock = Clock.system();
  MetricsProvider metricsProvider = MetricsProvider.noop();
  QueueStorage<T> storage;
  long metricsUpdatePeriodNanos = DEFAULT_METRICS_UPDATE_PERIOD.toNanos();

  WorkQueueBuilder() {}

  /**
   * The queue's name, under which its metrics are recorded. Default: none, and an unnamed
   * queue records no metrics.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public WorkQueueBuilder<T> name(String name) {
    Items.requireArg(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
    return this;
  }

  /** The time source. Default: {@link Clock#system()}; tests pass a {@code FakeClock}. */
  public WorkQueueBuilder<T> clock(Clock clock) {
    this.clock = Items.requireArg(clock, "clock");
    return this;
  }

  /** Where a named queue's metrics go. Default: {@link MetricsProvider#noop()}. */
  public WorkQueueBuilder<T> metricsProvider(MetricsProvider provider) {
    this.metricsProvider = Items.requireArg(provider, "provider");
    return this;
  }

  /** How the queued items are kept. Default: a fresh {@link QueueStorage#fifo()} per queue. */
  public WorkQueueBuilder<T> storage(QueueStorage<T> storage) {
    this.storage = Items.requireArg(storage, "storage");
    return this;
  }

  /**
   * How often the unfinished-work and longest-running gauges are refreshed while something is
   * processing. Default: 500 ms, as client-go.
   *
   * @throws IllegalArgumentException if {@code period} is not positive
   */
  public WorkQueueBuilder<T> metricsUpdatePeriod(Duration period) {
    Items.requireArg(period, "period");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive, was " + period);
    }
    this.metricsUpdatePeriodNanos = TimeMath.delayNanos(period);
    return this;
  }

  /** A basic work queue with these settings. */
  public WorkQueue<T> build() {
    return new DefaultWorkQueue<>(this);
  }

  QueueStorage<T> takeStorage() {
    QueueStorage<T> s = storage != null ? storage : QueueStorage.fifo();
    storage = null; // a storage belongs to one queue
    return s;
  }

  QueueMetrics<T> newMetrics(java.util.concurrent.locks.Lock queueLock) {
    if (name == null || metricsProvider == MetricsProvider.noop()) {
      return QueueMetrics.noop();
    }
    return new LiveQueueMetrics<>(
        name, metricsProvider, clock, metricsUpdatePeriodNanos, queueLock);
  }
}
