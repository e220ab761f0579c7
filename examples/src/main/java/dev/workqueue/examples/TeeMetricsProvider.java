package dev.workqueue.examples;

import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;

/**
 * Queue and controller metrics recorded by two providers at once: the demo keeps its
 * in-memory summary and also publishes to Micrometer, or tells each add's outcome
 * ({@link AddOutcome}, queue metrics only).
 */
final class TeeMetricsProvider implements MetricsProvider, ControllerMetricsProvider {
  private final MetricsProvider firstQueue;
  private final ControllerMetricsProvider firstController;
  private final MetricsProvider secondQueue;
  private final ControllerMetricsProvider secondController;

  private TeeMetricsProvider(MetricsProvider firstQueue, ControllerMetricsProvider firstController,
      MetricsProvider secondQueue, ControllerMetricsProvider secondController) {
    this.firstQueue = firstQueue;
    this.firstController = firstController;
    this.secondQueue = secondQueue;
    this.secondController = secondController;
  }

  static <A extends MetricsProvider & ControllerMetricsProvider,
      B extends MetricsProvider & ControllerMetricsProvider> TeeMetricsProvider of(A first, B second) {
    return new TeeMetricsProvider(first, first, second, second);
  }

  /** Queue metrics to both; controller metrics to {@code first} only. */
  static <A extends MetricsProvider & ControllerMetricsProvider> TeeMetricsProvider ofQueues(
      A first, MetricsProvider secondQueue) {
    return new TeeMetricsProvider(first, first, secondQueue, ControllerMetricsProvider.noop());
  }

  private static Counter counters(Counter a, Counter b) {
    return () -> {
      a.inc();
      b.inc();
    };
  }

  private static Gauge gauges(Gauge a, Gauge b) {
    return v -> {
      a.set(v);
      b.set(v);
    };
  }

  private static Histogram histograms(Histogram a, Histogram b) {
    return v -> {
      a.observe(v);
      b.observe(v);
    };
  }

  @Override
  public Gauge newDepthMetric(String name) {
    return gauges(firstQueue.newDepthMetric(name), secondQueue.newDepthMetric(name));
  }

  @Override
  public Counter newAddsMetric(String name) {
    return counters(firstQueue.newAddsMetric(name), secondQueue.newAddsMetric(name));
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return histograms(firstQueue.newLatencyMetric(name), secondQueue.newLatencyMetric(name));
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return histograms(firstQueue.newWorkDurationMetric(name), secondQueue.newWorkDurationMetric(name));
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return gauges(firstQueue.newUnfinishedWorkSecondsMetric(name),
        secondQueue.newUnfinishedWorkSecondsMetric(name));
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return gauges(firstQueue.newLongestRunningProcessorSecondsMetric(name),
        secondQueue.newLongestRunningProcessorSecondsMetric(name));
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return counters(firstQueue.newRetriesMetric(name), secondQueue.newRetriesMetric(name));
  }

  @Override
  public Counter newReconcileTotal(String controller, String result) {
    return counters(firstController.newReconcileTotal(controller, result),
        secondController.newReconcileTotal(controller, result));
  }

  @Override
  public Counter newReconcileErrors(String controller) {
    return counters(firstController.newReconcileErrors(controller),
        secondController.newReconcileErrors(controller));
  }

  @Override
  public Counter newTerminalReconcileErrors(String controller) {
    return counters(firstController.newTerminalReconcileErrors(controller),
        secondController.newTerminalReconcileErrors(controller));
  }

  @Override
  public Counter newReconcilePanics(String controller) {
    return counters(firstController.newReconcilePanics(controller),
        secondController.newReconcilePanics(controller));
  }

  @Override
  public Histogram newReconcileTime(String controller) {
    return histograms(firstController.newReconcileTime(controller),
        secondController.newReconcileTime(controller));
  }

  @Override
  public Gauge newActiveWorkers(String controller) {
    return gauges(firstController.newActiveWorkers(controller),
        secondController.newActiveWorkers(controller));
  }

  @Override
  public Gauge newMaxConcurrentReconciles(String controller) {
    return gauges(firstController.newMaxConcurrentReconciles(controller),
        secondController.newMaxConcurrentReconciles(controller));
  }
}
