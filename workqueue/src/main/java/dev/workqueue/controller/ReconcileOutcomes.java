package dev.workqueue.controller;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;

/**
 * What a controller does with each reconcile's outcome (the table in the README: forget,
 * requeue after a delay, requeue with back-off, drop past the retries, nothing for a terminal
 * error), and the controller-runtime metrics that count outcomes and busy workers. A metrics
 * provider that throws costs neither a key nor a worker: it is logged once and ignored. No-op
 * metrics (the default) cost no allocation and no shared write per reconcile.
 */
final class ReconcileOutcomes<T> {
  private final Logger log;
  private final String name;
  private final int maxRetries;
  private final DroppedKeyHandler<? super T> droppedKeyHandler;
  private final Counter successes;
  private final Counter errors;
  private final Counter requeues;
  private final Counter requeuesAfter;
  private final Counter errorsTotal;
  private final Counter terminalErrors;
  private final Counter panics;
  private final Histogram reconcileTime;
  private final Gauge activeWorkersGauge;
  private final AtomicInteger activeWorkers = new AtomicInteger();
  private volatile boolean warnedMetrics;

  ReconcileOutcomes(String name, Logger log, ControllerMetricsProvider m, int workers,
      int maxRetries, DroppedKeyHandler<? super T> droppedKeyHandler) {
    this.name = name;
    this.log = log;
    this.maxRetries = maxRetries;
    this.droppedKeyHandler = droppedKeyHandler;
    this.successes = m.newReconcileTotal(name, ControllerMetricsProvider.SUCCESS);
    this.errors = m.newReconcileTotal(name, ControllerMetricsProvider.ERROR);
    this.requeues = m.newReconcileTotal(name, ControllerMetricsProvider.REQUEUE);
    this.requeuesAfter = m.newReconcileTotal(name, ControllerMetricsProvider.REQUEUE_AFTER);
    this.errorsTotal = m.newReconcileErrors(name);
    this.terminalErrors = m.newTerminalReconcileErrors(name);
    this.panics = m.newReconcilePanics(name);
    this.reconcileTime = m.newReconcileTime(name);
    this.activeWorkersGauge = m.newActiveWorkers(name);
    m.newMaxConcurrentReconciles(name).set(workers);
    activeWorkersGauge.set(0);
  }

  /** The reconciler threw an {@code Error}. */
  void panicked() {
    count(panics);
  }

  /**
   * Whether {@link #took} records anything: a no-op histogram needs no clock readings. Asked per
   * reconcile, so that the worker skips the readings too.
   */
  boolean timesReconciles() {
    return reconcileTime != Histogram.NOOP;
  }

  /** A reconcile and its outcome took {@code nanos}. */
  void took(long nanos) {
    if (reconcileTime == Histogram.NOOP) {
      return;
    }
    try {
      reconcileTime.observe(TimeMath.toSeconds(nanos));
    } catch (RuntimeException e) {
      metricFailed(e);
    }
  }

  /**
   * A worker starts a reconcile: the active-workers gauge goes up. A no-op gauge costs nothing
   * (the controller's status counts busy workers from its worker slots, not from here).
   */
  void reconcileStarted() {
    if (activeWorkersGauge != Gauge.NOOP) {
      setActiveWorkers(activeWorkers.incrementAndGet());
    }
  }

  /** A worker's reconcile is over: the active-workers gauge goes down. */
  void reconcileEnded() {
    if (activeWorkersGauge != Gauge.NOOP) {
      setActiveWorkers(activeWorkers.decrementAndGet());
    }
  }

  private void setActiveWorkers(int active) {
    try {
      activeWorkersGauge.set(active);
    } catch (RuntimeException e) {
      metricFailed(e);
    }
  }

  /**
   * Counts; a metrics provider that throws must cost neither a key (its outcome and {@code
   * done}) nor a worker, so the exception is logged (once per controller) and ignored.
   */
  private void count(Counter counter) {
    try {
      counter.inc();
    } catch (RuntimeException e) {
      metricFailed(e);
    }
  }

  private void metricFailed(RuntimeException e) {
    if (!warnedMetrics) {
      warnedMetrics = true;
      log.warn("controller {}: a metric threw; ignored (logged once per controller)", name, e);
    }
  }

  /**
   * Applies the outcome of reconciling {@code key}: {@code result}, or the {@code failure}.
   *
   * @return whether the key was requeued with back-off (a retried failure, or a requeue)
   */
  boolean apply(RateLimitingQueue<T> q, T key, int priority, Result result, Throwable failure) {
    if (failure instanceof TerminalException) {
      count(errors);
      count(errorsTotal);
      count(terminalErrors);
      log.error("controller {}: terminal error reconciling {}; not retried", name, key, failure);
      return false;
    } else if (failure != null) {
      count(errors);
      count(errorsTotal);
      int requeued = q.numRequeues(key);
      if (maxRetries >= 0 && requeued >= maxRetries) {
        q.forget(key);
        log.error("controller {}: dropping {} after {} retries", name, key, requeued, failure);
        droppedKeyHandler.dropped(key, requeued, failure);
        return false;
      }
      log.error("controller {}: reconcile of {} failed; retrying with back-off", name, key,
          failure);
      requeueRateLimited(q, key, priority);
      return true;
    } else if (result == null || result.isSuccess()) {
      count(successes);
      q.forget(key);
      return false;
    } else if (result.requeueAfterDelay() != null) {
      count(requeuesAfter);
      q.forget(key);
      addAfter(q, key, result.priority().orElse(priority), result.requeueAfterDelay());
      return false;
    }
    count(requeues);
    requeueRateLimited(q, key, result.priority().orElse(priority));
    return true;
  }

  /** {@code done}, which must not cost the worker: a queue (or wrapper) that throws is logged. */
  void done(RateLimitingQueue<T> q, T key) {
    try {
      q.done(key);
    } catch (RuntimeException e) {
      log.error("controller {}: done({}) threw; the worker goes on", name, key, e);
    }
  }

  /** {@code addAfter(key, delay)}, at {@code priority} on a priority queue. */
  static <T> void addAfter(RateLimitingQueue<T> q, T key, int priority, Duration delay) {
    if (q instanceof PriorityWorkQueue<T> pq) {
      pq.add(key, AddOptions.ofPriority(priority).withAfter(delay));
    } else {
      q.addAfter(key, delay);
    }
  }

  /** {@code addRateLimited}, at {@code priority} on a priority queue. */
  private static <T> void requeueRateLimited(RateLimitingQueue<T> q, T key, int priority) {
    if (q instanceof PriorityWorkQueue<T> pq) {
      pq.add(key, AddOptions.ofPriority(priority).withRateLimited(true));
    } else {
      q.addRateLimited(key);
    }
  }
}
