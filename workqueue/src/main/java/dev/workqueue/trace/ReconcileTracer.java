package dev.workqueue.trace;

import java.time.Duration;

/**
 * A controller's tracer, set with {@code Controller.builder(name).tracer(...)}: it carries a
 * context from each add of a key to the reconcile that covers it (the controller's queue calls
 * {@link #onAdd}, as {@link QueueTracer#onAdd}), and brackets each reconcile ({@link
 * #onReconcile}, then {@link Reconcile#end}) on the worker's thread, around the reconciler and
 * the queue calls its outcome makes (so a requeue's {@link #onAdd} runs inside the bracket).
 *
 * <p>The adds a reconcile covers are those its queue's hand-out covers (see {@link
 * QueueTracer}). Only the controller's default queue is traced: with {@code queue(factory)} the
 * reconciles are bracketed with no adds. A key handed out and not reconciled then (a stop
 * without drain, a key deferred behind its own run on another worker, keys kept while the
 * controller was stopped) is queued again as a new add: the adds of that hand-out are lost to
 * the trace, and the reconcile that follows carries the new add only. {@link Reconcile#end}
 * runs before the key's {@code done}, so the spans of one key never overlap. What the methods
 * throw, an {@code Error} included, is logged and ignored: the reconcile, its outcome and its
 * {@code done} go on.
 *
 * @param <T> the key type
 */
public interface ReconcileTracer<T> {
  /** Outcome: the reconciler succeeded (or returned null); the key is forgotten. */
  String SUCCESS = "success";
  /** Outcome: the reconciler threw; the key is requeued with back-off. */
  String ERROR = "error";
  /** Outcome: the reconciler asked for a rate-limited requeue. */
  String REQUEUE = "requeue";
  /** Outcome: the reconciler asked for a requeue after a delay. */
  String REQUEUE_AFTER = "requeue_after";
  /** Outcome: the reconciler threw a terminal exception; the key is not retried. */
  String TERMINAL_ERROR = "terminal_error";
  /** Outcome: the reconciler threw past the controller's retry limit; the key is dropped. */
  String DROPPED = "dropped";

  /**
   * On the adding thread, before an add of {@code key} to the controller's queue takes effect:
   * the context to carry, or null for none.
   *
   * @param key the key added
   * @param delay zero for an add without delay, else its delay (back-off, rate limit, requeue
   *     after)
   * @return an opaque context, or null
   */
  Object onAdd(T key, Duration delay);

  /**
   * On the worker's thread, right before the reconciler is called.
   *
   * @param controller the controller's name
   * @param key the key about to be reconciled
   * @param attempt 1 for a first try, n + 1 after n rate-limited requeues ({@code numRequeues})
   * @param handOut the adds this reconcile covers and its wait in the queue
   * @return what {@link Reconcile#end} is called on, on the same thread; not null
   */
  Reconcile onReconcile(String controller, T key, int attempt, HandOut handOut);

  /**
   * How many contexts one reconcile carries; later adds are counted only.
   *
   * @return at least 0; default {@link QueueTracer#DEFAULT_MAX_CARRIED}
   */
  default int maxCarried() {
    return QueueTracer.DEFAULT_MAX_CARRIED;
  }

  /** One reconcile in progress. */
  interface Reconcile {
    /**
     * The reconcile and its outcome's queue calls are over (its {@code done} follows).
     *
     * @param outcome one of the outcome constants of {@link ReconcileTracer}
     * @param failure what the reconciler threw (or its timeout), or null
     */
    void end(String outcome, Throwable failure);
  }
}
