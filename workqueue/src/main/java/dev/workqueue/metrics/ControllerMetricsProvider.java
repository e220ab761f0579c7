package dev.workqueue.metrics;

/**
 * Creates the metrics of a reconcile loop ({@code dev.workqueue.controller}), named as
 * controller-runtime names them so dashboards for Go controllers carry over; each takes the
 * controller's name (the {@code controller} label). Every factory returns a no-op metric by
 * default: a provider overrides the ones it publishes.
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
 *   <tr><td>{@link #newLeaderElectionMasterStatus}</td>
 *       <td>{@code leader_election_master_status}</td>
 *       <td>1 while this replica holds the Lease, else 0 (label {@code name}: the Lease)</td></tr>
 *   <tr><td>{@link #newShardMembers}</td><td>{@code workqueue_shard_members}</td>
 *       <td>the members of a shard ring this replica splits the keys among (label
 *       {@code ring})</td></tr>
 *   <tr><td>{@link #newShardKeysOwned}</td><td>{@code workqueue_shard_keys_owned}</td>
 *       <td>the cached objects whose keys the ring gives this replica</td></tr>
 *   <tr><td>{@link #newShardHandOvers}</td><td>{@code workqueue_shard_handovers_total}</td>
 *       <td>keys this replica gained from a change of the ring</td></tr>
 *   <tr><td>{@link #newShardHandOverTime}</td>
 *       <td>{@code workqueue_shard_handover_duration_seconds}</td>
 *       <td>from the change that gave this replica a key to its first reconcile of it</td></tr>
 * </table>
 */
public interface ControllerMetricsProvider {
  /** The name of {@link #newShardMembers}'s gauge. */
  String SHARD_MEMBERS = "workqueue_shard_members";
  /** The name of {@link #newShardKeysOwned}'s gauge. */
  String SHARD_KEYS_OWNED = "workqueue_shard_keys_owned";
  /** The name of {@link #newShardHandOvers}'s counter. */
  String SHARD_HANDOVERS = "workqueue_shard_handovers_total";
  /** The name of {@link #newShardHandOverTime}'s histogram. */
  String SHARD_HANDOVER_TIME = "workqueue_shard_handover_duration_seconds";
  /** The name of {@link #newLeaderElectionMasterStatus}'s gauge, as client-go names it. */
  String LEADER_ELECTION_MASTER_STATUS = "leader_election_master_status";
  /** The name of {@link #newReconcileTotal}'s counters. */
  String RECONCILE_TOTAL = "controller_runtime_reconcile_total";
  /** The name of {@link #newReconcileErrors}'s counter. */
  String RECONCILE_ERRORS = "controller_runtime_reconcile_errors_total";
  /** The name of {@link #newTerminalReconcileErrors}'s counter. */
  String TERMINAL_RECONCILE_ERRORS = "controller_runtime_terminal_reconcile_errors_total";
  /** The name of {@link #newReconcilePanics}'s counter. */
  String RECONCILE_PANICS = "controller_runtime_reconcile_panics_total";
  /** The name of {@link #newReconcileTime}'s histogram. */
  String RECONCILE_TIME = "controller_runtime_reconcile_time_seconds";
  /** The name of {@link #newActiveWorkers}'s gauge. */
  String ACTIVE_WORKERS = "controller_runtime_active_workers";
  /** The name of {@link #newMaxConcurrentReconciles}'s gauge. */
  String MAX_CONCURRENT_RECONCILES = "controller_runtime_max_concurrent_reconciles";

  /** Result of {@link #newReconcileTotal}: the reconciler returned a success (or null). */
  String SUCCESS = "success";
  /** Result of {@link #newReconcileTotal}: the reconcile failed (terminal failures too). */
  String ERROR = "error";
  /** Result of {@link #newReconcileTotal}: the reconciler returned {@code Result.requeue()}. */
  String REQUEUE = "requeue";
  /** Result of {@link #newReconcileTotal}: the reconciler returned a {@code requeueAfter}. */
  String REQUEUE_AFTER = "requeue_after";

  /**
   * The reconciles of {@code controller} with one {@code result} ({@value #RECONCILE_TOTAL});
   * each controller asks once for each of the four results.
   *
   * @param controller the controller's name, as given to its builder
   * @param result the {@code result} label: {@link #SUCCESS}, {@link #ERROR}, {@link #REQUEUE}
   *     or {@link #REQUEUE_AFTER}
   * @return the counter, incremented once per reconcile with that result
   */
  default Counter newReconcileTotal(String controller, String result) {
    return Counter.NOOP;
  }

  /**
   * The failed reconciles of {@code controller} ({@value #RECONCILE_ERRORS}): an exception, an
   * {@code Error}, a timeout or a terminal exception.
   *
   * @param controller the controller's name, as given to its builder
   * @return the counter
   */
  default Counter newReconcileErrors(String controller) {
    return Counter.NOOP;
  }

  /**
   * The reconciles of {@code controller} that threw a {@code TerminalException}
   * ({@value #TERMINAL_RECONCILE_ERRORS}); they count as errors too.
   *
   * @param controller the controller's name, as given to its builder
   * @return the counter
   */
  default Counter newTerminalReconcileErrors(String controller) {
    return Counter.NOOP;
  }

  /**
   * The reconciles of {@code controller} that threw an {@code Error}
   * ({@value #RECONCILE_PANICS}), which the worker caught; they count as errors too.
   *
   * @param controller the controller's name, as given to its builder
   * @return the counter
   */
  default Counter newReconcilePanics(String controller) {
    return Counter.NOOP;
  }

  /**
   * How long the reconciles of {@code controller} took ({@value #RECONCILE_TIME}), whatever
   * their outcome, handling the outcome (requeue, forget) included.
   *
   * @param controller the controller's name, as given to its builder
   * @return the histogram, observing seconds
   */
  default Histogram newReconcileTime(String controller) {
    return Histogram.NOOP;
  }

  /**
   * The workers of {@code controller} reconciling now ({@value #ACTIVE_WORKERS}).
   *
   * @param controller the controller's name, as given to its builder
   * @return the gauge, set to a count of workers; 0 when idle
   */
  default Gauge newActiveWorkers(String controller) {
    return Gauge.NOOP;
  }

  /**
   * The configured worker count of {@code controller} ({@value #MAX_CONCURRENT_RECONCILES}),
   * set once when the controller is built.
   *
   * @param controller the controller's name, as given to its builder
   * @return the gauge
   */
  default Gauge newMaxConcurrentReconciles(String controller) {
    return Gauge.NOOP;
  }

  /**
   * Whether this replica holds the Lease {@code lease} ({@value #LEADER_ELECTION_MASTER_STATUS},
   * label {@code name}): 1 while it leads, 0 while it stands by. Set by controllers with leader
   * election (the {@code kubernetes-fabric8} module). The default records nothing.
   *
   * @param lease the Lease's name
   * @return the gauge
   */
  default Gauge newLeaderElectionMasterStatus(String lease) {
    return Gauge.NOOP;
  }

  /**
   * The members of the shard ring {@code ring} this replica splits the keys among
   * ({@value #SHARD_MEMBERS}, label {@code ring}). Set by sharded controllers (the {@code
   * kubernetes-fabric8} module). The default records nothing.
   *
   * @param ring the ring's name
   * @return the gauge
   */
  default Gauge newShardMembers(String ring) {
    return Gauge.NOOP;
  }

  /**
   * The cached objects whose keys the ring gives this replica ({@value #SHARD_KEYS_OWNED}).
   * The default records nothing.
   *
   * @param ring the ring's name
   * @return the gauge
   */
  default Gauge newShardKeysOwned(String ring) {
    return Gauge.NOOP;
  }

  /**
   * Keys this replica gained from changes of the ring ({@value #SHARD_HANDOVERS}). The default
   * records nothing.
   *
   * @param ring the ring's name
   * @return the counter
   */
  default Counter newShardHandOvers(String ring) {
    return Counter.NOOP;
  }

  /**
   * Seconds from the change of the ring that gave this replica a key to its first reconcile of
   * that key here ({@value #SHARD_HANDOVER_TIME}): how long the previous owner took to let go.
   * The default records nothing.
   *
   * @param ring the ring's name
   * @return the histogram
   */
  default Histogram newShardHandOverTime(String ring) {
    return Histogram.NOOP;
  }

  /**
   * A provider that records nothing.
   *
   * @return the shared no-op provider, the controller builder's default
   */
  static ControllerMetricsProvider noop() {
    return NoopMetricsProvider.CONTROLLER;
  }
}
