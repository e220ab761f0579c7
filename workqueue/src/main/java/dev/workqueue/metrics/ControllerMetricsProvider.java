package dev.workqueue.metrics;

/**
 * Creates the metrics of a reconcile loop ({@code dev.workqueue.controller}), named as
 * controller-runtime names them so dashboards for Go controllers carry over; each takes the
 * controller's name (the {@code controller} label).
 *
 * <table>
 *   <caption>Controller metrics</caption>
 *   <tr><th>factory</th><th>name</th><th>meaning</th></tr>
 *   <tr><td>{@link #newReconcileTotal}</td><td>{@code controller_runtime_reconcile_total}</td>
 *       <td>reconciles by {@code result}: success, error, requeue, requeue_after</td></tr>
 *   <tr><td>{@link #newReconcileErrors}</td>
 *       <td>{@code controller_runtime_reconcile_errors_total}</td>
 *       <td>reconciles that failed (exception, error, timeout, terminal)</td></tr>
 *   <tr><td>{@link #newTerminalReconcileErrors}</td>
 *       <td>{@code controller_runtime_terminal_reconcile_errors_total}</td>
 *       <td>reconciles that failed with a terminal exception</td></tr>
 *   <tr><td>{@link #newReconcilePanics}</td>
 *       <td>{@code controller_runtime_reconcile_panics_total}</td>
 *       <td>{@code Error}s a reconciler threw that the worker caught</td></tr>
 *   <tr><td>{@link #newReconcileTime}</td><td>{@code controller_runtime_reconcile_time_seconds}</td>
 *       <td>how long each reconcile took</td></tr>
 *   <tr><td>{@link #newActiveWorkers}</td><td>{@code controller_runtime_active_workers}</td>
 *       <td>workers reconciling now</td></tr>
 *   <tr><td>{@link #newMaxConcurrentReconciles}</td>
 *       <td>{@code controller_runtime_max_concurrent_reconciles}</td>
 *       <td>the configured worker count</td></tr>
 * </table>
 */
public interface ControllerMetricsProvider {
  String RECONCILE_TOTAL = "controller_runtime_reconcile_total";
  String RECONCILE_ERRORS = "controller_runtime_reconcile_errors_total";
  String TERMINAL_RECONCILE_ERRORS = "controller_runtime_terminal_reconcile_errors_total";
  String RECONCILE_PANICS = "controller_runtime_reconcile_panics_total";
  String RECONCILE_TIME = "controller_runtime_reconcile_time_seconds";
  String ACTIVE_WORKERS = "controller_runtime_active_workers";
  String MAX_CONCURRENT_RECONCILES = "controller_runtime_max_concurrent_reconciles";

  /** Results of {@link #newReconcileTotal}. */
  String SUCCESS = "success";
  String ERROR = "error";
  String REQUEUE = "requeue";
  String REQUEUE_AFTER = "requeue_after";

  Counter newReconcileTotal(String controller, String result);

  Counter newReconcileErrors(String controller);

  Counter newTerminalReconcileErrors(String controller);

  Counter newReconcilePanics(String controller);

  Histogram newReconcileTime(String controller);

  Gauge newActiveWorkers(String controller);

  Gauge newMaxConcurrentReconciles(String controller);

  /** A provider that records nothing. */
  static ControllerMetricsProvider noop() {
    return NoopMetricsProvider.CONTROLLER;
  }
}
