package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.MDC;

/**
 * One reconcile of one key, from the call to the reconciler to its {@code done}: the context
 * and logging MDC it runs with, its timeout, its outcome ({@link ReconcileOutcomes}) and what
 * follows it (an add held during it, its next reconcile within the longest interval). {@code
 * done} is in a {@code finally}, so no outcome, not even a fatal {@code Error}, leaves a key
 * stuck in the processing set.
 *
 * @param <T> the key type
 */
final class ReconcileStep<T> {
  private final Logger log;
  private final String name;
  private final ContextualReconciler<T> reconciler;
  /** The reconciler if it takes no context: then, without an MDC, none is made. */
  private final Reconciler<T> plainReconciler;
  /**
   * Whether the logging binding keeps MDC values: not slf4j-nop's or slf4j-simple's adapter,
   * whose puts would only cost the worker four strings and eight calls per reconcile.
   */
  private final boolean mdc;
  private final AtomicLong reconcileIds = new AtomicLong();
  private final int maxRetries;
  private final Clock clock;
  private final long reconcileTimeoutNanos;
  private final Duration maxReconcileInterval; // null: none
  private final Predicate<? super T> keepReconciling;
  private final ReconcileOutcomes<T> outcomes;
  private final KeptKeys<T> keys;
  /** Null unless the controller is traced. */
  private final ReconcileTracing<T> tracing;

  ReconcileStep(ControllerBuilder<T> b, Logger log, boolean mdc, ReconcileOutcomes<T> outcomes,
      KeptKeys<T> keys) {
    this.log = log;
    this.name = b.name;
    this.reconciler = b.reconciler;
    this.plainReconciler = b.plainReconciler;
    this.mdc = mdc;
    this.maxRetries = b.maxRetries;
    this.clock = b.clock;
    this.reconcileTimeoutNanos = b.reconcileTimeoutNanos;
    this.maxReconcileInterval = b.maxReconcileInterval;
    this.keepReconciling = b.keepReconciling;
    this.outcomes = outcomes;
    this.keys = keys;
    this.tracing = b.tracing;
  }

  /**
   * One reconcile and its outcome; {@code done} always. A context (its attempt asks the limiter,
   * its id takes a shared counter) is made only if something reads it: a {@link
   * ContextualReconciler}, or an MDC that keeps values; the MDC's four strings likewise.
   */
  void reconcile(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority) {
    if (tracing == null) {
      run(r, slot, key, priority, -1);
      return;
    }
    int requeues = requeues(r, key);
    tracing.start(name, key, requeues + 1, log);
    try {
      run(r, slot, key, priority, requeues);
    } finally {
      endSpan(); // ended in settle before done; here only if run threw before it
    }
  }

  /** Ends the traced reconcile's span, once (a second call finds none). */
  private void endSpan() {
    if (tracing != null) {
      tracing.end(name, log);
    }
  }

  /** {@code knownRequeues}: the key's requeues if read already, else -1. */
  private void run(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority,
      int knownRequeues) {
    r.reconciling(key);
    if (plainReconciler != null && !mdc) {
      reconcile(r, slot, key, priority, null);
      return;
    }
    int requeues = knownRequeues >= 0 ? knownRequeues : requeues(r, key);
    Context context = new Context(name, reconcileIds.incrementAndGet(), requeues + 1,
        maxRetries >= 0 && requeues >= maxRetries, priority);
    if (!mdc) {
      reconcile(r, slot, key, priority, context);
      return;
    }
    MDC.put(ReconcileContext.MDC_CONTROLLER, name);
    MDC.put(ReconcileContext.MDC_KEY, String.valueOf(key));
    MDC.put(ReconcileContext.MDC_RECONCILE_ID, Long.toString(context.reconcileId()));
    MDC.put(ReconcileContext.MDC_ATTEMPT, Integer.toString(context.attempt()));
    try {
      reconcile(r, slot, key, priority, context); // the outcome's log lines carry the MDC
    } finally {
      MDC.remove(ReconcileContext.MDC_CONTROLLER);
      MDC.remove(ReconcileContext.MDC_KEY);
      MDC.remove(ReconcileContext.MDC_RECONCILE_ID);
      MDC.remove(ReconcileContext.MDC_ATTEMPT);
    }
  }

  private static <T> int requeues(ControllerRun<T> r, T key) {
    try {
      return r.queue.numRequeues(key);
    } catch (RuntimeException e) { // a custom limiter: the reconcile runs all the same
      return 0;
    }
  }

  /** A reconcile's context. */
  private record Context(String controller, long reconcileId, int attempt, boolean lastAttempt,
      int priority) implements ReconcileContext {}

  /** The reconcile of {@code key}, within its timeout; {@code context} is null if unread. */
  private void reconcile(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority,
      Context context) {
    long start = outcomes.timesReconciles() || reconcileTimeoutNanos > 0 ? clock.nanoTime() : 0;
    ReconcileWatchdog watchdog =
        reconcileTimeoutNanos > 0 ? new ReconcileWatchdog(Thread.currentThread()) : null;
    Cancellable timer = watchdog == null ? null
        : clock.schedule(TimeMath.deadline(start, reconcileTimeoutNanos), watchdog);
    Object outcome;
    boolean timedOut = false;
    try {
      outcome = call(key, context);
    } finally {
      if (watchdog != null) {
        timer.cancel();
        timedOut = watchdog.finish();
        if (timedOut) {
          Thread.interrupted(); // the watchdog's interrupt, delivered: clear it
        }
      }
    }
    Throwable failure = outcome instanceof Throwable t ? t : null;
    if (timedOut) {
      failure = timeoutFailure(key, failure);
    }
    settle(r, slot, key, priority, outcome instanceof Result res ? res : null, failure, start);
  }

  /** What the reconciler returned (a {@link Result}, or null), or what it threw. */
  private Object call(T key, Context context) {
    try {
      return context == null
          ? plainReconciler.reconcile(key) : reconciler.reconcile(key, context);
    } catch (Exception | Error e) {
      // A StackOverflowError's stack is unwound by now: safe to go on. Another
      // VirtualMachineError ends the worker once the key is done (see settle).
      return e;
    }
  }

  /**
   * The failure of a reconcile that outlived its timeout: the timeout, whatever the interrupt
   * made the reconciler throw (usually an InterruptedException), which stays as its cause. An
   * Error, or a TerminalException (no retry asked for), stays as it is.
   */
  private Throwable timeoutFailure(T key, Throwable failure) {
    if (failure instanceof Error || failure instanceof TerminalException) {
      return failure;
    }
    Throwable timeout = new TimeoutException(
        "reconcile of " + key + " exceeded " + Duration.ofNanos(reconcileTimeoutNanos));
    if (failure != null) {
      timeout.initCause(failure);
    }
    return timeout;
  }

  /**
   * Applies the outcome of a reconcile that began at {@code start}, then marks the key done.
   * A fatal {@code VirtualMachineError} is thrown on once the key is done.
   */
  private void settle(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority,
      Result result, Throwable failure, long start) {
    VirtualMachineError fatal = failure instanceof VirtualMachineError vme
        && !(failure instanceof StackOverflowError) ? vme : null;
    long end = LiveRuns.NEVER;
    boolean backingOff = false;
    try {
      if (failure instanceof Error) {
        outcomes.panicked();
      }
      backingOff = outcomes.apply(r.queue, key, priority, result, failure);
      if (tracing != null) {
        tracing.settled(ReconcileTracing.outcome(result, failure, backingOff), failure);
      }
      end = clock.nanoTime();
      if (outcomes.timesReconciles()) {
        outcomes.took(end - start);
      }
    } catch (RuntimeException | Error e) {
      // The caller's code around the reconcile (a dropped-key handler, a rate limiter, a
      // metrics provider) threw: the key is still done below and the worker goes on.
      if (e instanceof VirtualMachineError vme && fatal == null) {
        fatal = vme;
      } else {
        log.error("controller {}: handling the outcome of reconciling {} threw; the key is"
            + " done and the worker goes on", name, key, e);
      }
    } finally {
      afterOutcome(r, key, priority, backingOff);
      endSpan(); // the span covers the outcome's queue calls, and ends before done
      outcomes.done(r.queue, key);
      slot.ended(end != LiveRuns.NEVER ? end : clock.nanoTime()); // one reading if all went well
    }
    if (fatal != null) {
      // The key is done and requeued; this worker ends, as the JVM may be broken.
      log.error("controller {}: reconcile of {} threw {}; worker {} exits, the other workers"
          + " go on", name, key, fatal, Thread.currentThread().getName());
      throw fatal;
    }
  }

  /**
   * Before {@code done}: an add held during the reconcile is made now unless its back-off
   * retry covers it (so {@code done} queues it again at once, as client-go does with an add
   * while processing); and, with a longest reconcile interval, the key's next reconcile is
   * scheduled. Either may call the caller's code (queue hooks, the keep filter): guarded.
   */
  private void afterOutcome(ControllerRun<T> r, T key, int priority, boolean backingOff) {
    try {
      if (r.settled(key, backingOff)) {
        keys.addOrKeep(r.queue, key); // done queues it again at once
      }
      if (maxReconcileInterval != null && !r.stopping && keep(key)) {
        // a sooner retry already waiting stays
        ReconcileOutcomes.addAfter(r.queue, key, priority, maxReconcileInterval);
      }
    } catch (RuntimeException e) {
      log.error("controller {}: requeueing {} after its reconcile threw; the worker goes on",
          name, key, e);
    }
  }

  private boolean keep(T key) {
    try {
      return keepReconciling.test(key);
    } catch (RuntimeException e) {
      log.error("controller {}: the maxReconcileInterval filter threw for {}; the key is"
          + " scheduled", name, key, e);
      return true;
    }
  }
}
