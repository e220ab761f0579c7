package dev.workqueue.controller;

import dev.workqueue.trace.HandOut;
import dev.workqueue.trace.QueueTracer;
import dev.workqueue.trace.ReconcileTracer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * A controller's side of its {@link ReconcileTracer}: the tracer of its default queue, which
 * passes each hand-out to the worker's thread, and the bracket of each reconcile. A queue's
 * hand-out reaches the tracer on the thread that took the key, before {@code get} returns, and
 * that thread reconciles the key next: a thread-local carries it across, and the reconcile takes
 * it out. Calls into the tracer are guarded: what they throw is logged once per controller.
 *
 * @param <T> the key type
 */
final class ReconcileTracing<T> implements QueueTracer<T> {
  private static final HandOut NONE = new HandOut(List.of(), 0, Duration.ZERO);
  private static final ReconcileTracer.Reconcile NOOP = (outcome, failure) -> {};

  /** A reconcile in progress on a worker's thread. */
  private static final class Current {
    ReconcileTracer.Reconcile span = NOOP;
    String outcome = ReconcileTracer.ERROR; // until settled
    Throwable failure;
  }

  private final ReconcileTracer<? super T> tracer;
  /** The last hand-out on this thread and its key. */
  private record Taken(Object key, HandOut handOut) {}

  private final ThreadLocal<Taken> handOuts = new ThreadLocal<>();
  private final ThreadLocal<Current> current = new ThreadLocal<>();
  private volatile boolean warned;

  ReconcileTracing(ReconcileTracer<? super T> tracer) {
    this.tracer = tracer;
  }

  @Override
  public Object onAdd(T item, Duration delay) {
    return tracer.onAdd(item, delay); // the queue guards it
  }

  @Override
  public void onHandOut(T item, HandOut handOut) {
    handOuts.set(new Taken(item, handOut)); // replaces one that no reconcile took
  }

  @Override
  public int maxCarried() {
    return tracer.maxCarried();
  }

  /**
   * Before the reconciler runs, on the worker's thread. The thread's last hand-out is this
   * key's unless the worker took a key it did not reconcile since (deferred behind a run of
   * the key elsewhere, or taken while the controller stopped): then it reports none.
   */
  void start(String controller, T key, int attempt, Logger log) {
    Taken taken = handOuts.get();
    handOuts.remove();
    HandOut h = taken != null && Objects.equals(taken.key(), key) ? taken.handOut() : null;
    Current c = new Current();
    try {
      ReconcileTracer.Reconcile span =
          tracer.onReconcile(controller, key, attempt, h != null ? h : NONE);
      c.span = span != null ? span : NOOP;
    } catch (RuntimeException | Error e) { // an Error too: the reconcile and its done must run
      failed(log, controller, "onReconcile", e);
    }
    current.set(c);
  }

  /** The outcome was applied: what {@link #end} reports. */
  void settled(String outcome, Throwable failure) {
    Current c = current.get();
    if (c != null) {
      c.outcome = outcome;
      c.failure = failure;
    }
  }

  /** After the outcome, before {@code done}, on the worker's thread. */
  void end(String controller, Logger log) {
    Current c = current.get();
    current.remove();
    if (c == null) {
      return;
    }
    try {
      c.span.end(c.outcome, c.failure);
    } catch (RuntimeException | Error e) {
      failed(log, controller, "end", e);
    }
  }

  private void failed(Logger log, String controller, String what, Throwable e) {
    if (e instanceof Error) {
      log.error("controller {}: the reconcile tracer's {} threw; the reconcile goes on",
          controller, what, e);
    } else if (!warned) {
      warned = true;
      log.warn("controller {}: the reconcile tracer's {} threw; the reconcile goes on (logged"
          + " once per controller)", controller, what, e);
    }
  }

  /** What a reconcile came to, as {@link ReconcileTracer.Reconcile#end} reports it. */
  static String outcome(Result result, Throwable failure, boolean backingOff) {
    if (failure instanceof TerminalException) {
      return ReconcileTracer.TERMINAL_ERROR;
    } else if (failure != null) {
      return backingOff ? ReconcileTracer.ERROR : ReconcileTracer.DROPPED;
    } else if (result == null || result.isSuccess()) {
      return ReconcileTracer.SUCCESS;
    }
    return result.requeueAfterDelay() != null
        ? ReconcileTracer.REQUEUE_AFTER : ReconcileTracer.REQUEUE;
  }
}
