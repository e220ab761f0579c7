package dev.workqueue.controller;

/**
 * What a reconcile knows beyond its key, for a {@link ContextualReconciler}: which controller,
 * which attempt, whether a failure now drops the key, at what priority. The same values are in
 * the logging MDC while the reconcile and its outcome run (see {@link #MDC_CONTROLLER} and the
 * other keys), so a reconciler's log lines carry them without passing the context around.
 */
public interface ReconcileContext {
  /** MDC key: the controller's name. */
  String MDC_CONTROLLER = "controller";
  /** MDC key: the key being reconciled, as {@code String.valueOf(key)}. */
  String MDC_KEY = "key";
  /** MDC key: {@link #reconcileId()}. */
  String MDC_RECONCILE_ID = "reconcileID";
  /** MDC key: {@link #attempt()}. */
  String MDC_ATTEMPT = "attempt";

  /**
   * The controller's name.
   *
   * @return the name given to the builder
   */
  String controller();

  /**
   * A number that names this reconcile among the controller's (as controller-runtime's
   * {@code reconcileID}): increasing, unique within the controller.
   *
   * @return the reconcile's number
   */
  long reconcileId();

  /**
   * Which attempt this is: 1, then one more after each failure that was retried with back-off;
   * back to 1 after a success (the key is forgotten).
   *
   * @return the attempt, from 1
   */
  int attempt();

  /**
   * Whether a failure of this attempt drops the key ({@code maxRetries} reached): a reconciler
   * may then report or clean up instead of failing once more.
   *
   * @return true on the last attempt; never true without {@code maxRetries}
   */
  boolean lastAttempt();

  /**
   * The priority the key was handed out at on a priority queue; 0 on any other queue.
   *
   * @return the priority
   */
  int priority();
}
