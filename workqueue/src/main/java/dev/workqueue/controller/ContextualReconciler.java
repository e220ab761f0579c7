package dev.workqueue.controller;

/**
 * A {@link Reconciler} that also gets a {@link ReconcileContext}: the attempt, whether it is
 * the last one, the priority. Given to {@link ControllerBuilder#reconciler(ContextualReconciler)};
 * the outcomes are a {@code Reconciler}'s.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface ContextualReconciler<T> {

  /**
   * Reconciles {@code key}.
   *
   * @param key the key to reconcile, as added to the controller
   * @param context this reconcile's attempt, priority and controller
   * @return what to do next, as {@link Reconciler#reconcile}
   * @throws Exception as {@link Reconciler#reconcile}
   */
  Result reconcile(T key, ReconcileContext context) throws Exception;
}
