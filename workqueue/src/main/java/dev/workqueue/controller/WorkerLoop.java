package dev.workqueue.controller;

import dev.workqueue.PriorityItem;
import dev.workqueue.PriorityWorkQueue;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;

/**
 * The worker loop: take a key from the run's queue, reconcile it ({@link ReconcileStep}, which
 * applies the outcome and marks it done), and again, until the queue shuts down or a stop past
 * its deadline forces the worker out. A worker that meets a stopping or failed run hands the
 * key it took back, so that no key is lost and none reconciled by two runs at once.
 *
 * <p>On a {@link PriorityWorkQueue} the workers take keys with their priority and requeue them
 * at that priority (or the one the {@link Result} sets), as controller-runtime does: a retry
 * keeps its place in line instead of falling back to priority 0.
 *
 * @param <T> the key type
 */
final class WorkerLoop<T> {
  /**
   * How long a key waits before it is looked at again while a worker of an earlier run (a stop
   * past its deadline) still reconciles it; on the controller's clock.
   */
  static final Duration EARLIER_RUN_RECHECK = Duration.ofMillis(100);

  private final Logger log;
  private final String name;
  private final boolean drainOnStop;
  private final ReconcileOutcomes<T> outcomes;
  private final ReconcileStep<T> step;
  private final KeptKeys<T> keys;
  private final LiveRuns<T> liveRuns;
  /** Whether a queue's {@code get} that threw was logged; once per controller. */
  private volatile boolean warnedQueue;

  WorkerLoop(ControllerBuilder<T> b, Logger log, ReconcileOutcomes<T> outcomes,
      ReconcileStep<T> step, KeptKeys<T> keys, LiveRuns<T> liveRuns) {
    this.log = log;
    this.name = b.name;
    this.drainOnStop = b.drainOnStop;
    this.outcomes = outcomes;
    this.step = step;
    this.keys = keys;
    this.liveRuns = liveRuns;
  }

  /** Worker {@code index} of {@code r}, to run on a thread or an executor. */
  Runnable worker(ControllerRun<T> r, int index) {
    return new Worker(r, index);
  }

  /** One worker of one run. */
  private final class Worker implements Runnable {
    private final ControllerRun<T> r;
    private final WorkerSlot<T> slot;
    private Thread self;
    /** The priority of the key {@link #take} returned last. */
    private int priority;

    Worker(ControllerRun<T> r, int index) {
      this.r = r;
      this.slot = r.slot(index);
    }

    @Override
    public void run() {
      self = Thread.currentThread();
      slot.thread = self;
      r.threads.add(self);
      try {
        while (next()) {
          // a key was reconciled, or sent to wait: take the next one
        }
      } finally {
        r.threads.remove(self);
        slot.thread = null; // an executor's thread goes on to other tasks
        liveRuns.workerExited(r, slot);
      }
    }

    /**
     * Takes a key and handles it; false if the worker is to exit. A method of its own, so that
     * the key goes with its frame: no local of the loop keeps the last key reachable while the
     * next take waits.
     */
    private boolean next() {
      T key = take();
      return key != null && handle(key);
    }

    /**
     * The next key (its priority in {@link #priority}), or null if the worker is to exit: the
     * queue shut down, the run was forced to end, or the worker was interrupted. A queue that
     * throws is asked again: the worker survives, as it does a reconciler's exception, so the
     * controller keeps the workers it reports.
     */
    private T take() {
      while (!r.forced) {
        try {
          if (r.queue instanceof PriorityWorkQueue<T> pq) {
            Optional<PriorityItem<T>> next = pq.getWithPriority();
            if (next.isEmpty()) {
              return null;
            }
            priority = next.get().priority();
            return next.get().item();
          }
          priority = 0;
          return r.queue.get().orElse(null);
        } catch (InterruptedException e) {
          if (!r.stopping) {
            log.warn("controller {}: worker {} interrupted while waiting; it exits", name,
                self.getName());
          }
          return null;
        } catch (RuntimeException e) {
          if (r.stopping) {
            return null;
          }
          if (!warnedQueue) {
            warnedQueue = true;
            log.error("controller {}: taking a key from the queue threw; worker {} goes on"
                + " (logged once per controller)", name, self.getName(), e);
          }
        }
      }
      return null;
    }

    /** Reconciles {@code key}, or hands it back; false if the worker is to exit. */
    private boolean handle(T key) {
      if (r.aborted) {
        keys.keepUntilStart(key, r.queue, priority); // a failed start: kept for the next one
        outcomes.done(r.queue, key);
        return false;
      }
      if (r.stopping && !drainOnStop) {
        outcomes.done(r.queue, key); // stopping without drain: the queued rest is dropped
        return false;
      }
      if (liveRuns.reconciledByAnEarlierRun(r, key)) {
        // A stop past its deadline left a reconcile of this key running: it waits, so
        // that one key is never reconciled twice at once, across runs too.
        deferBehindAnEarlierRun(key);
        return true;
      }
      if (!r.deferred.isEmpty()) {
        r.deferred.remove(key);
      }
      slot.claim(key);
      if (r.forced) {
        // A stop past its deadline came between the take and the claim: a later run may
        // have missed the claim, so this worker backs out; the key waits for the next start.
        slot.reconciling(null);
        keys.keepUntilStart(key, r.queue, priority);
        outcomes.done(r.queue, key);
        return false;
      }
      outcomes.reconcileStarted();
      try {
        step.reconcile(r, slot, key, priority);
      } finally {
        outcomes.reconcileEnded();
        slot.reconciling(null);
      }
      return !(Thread.interrupted() && r.forced); // interrupted by a stop past its deadline
    }

    /**
     * Queues {@code key} again after {@link #EARLIER_RUN_RECHECK} (not rate-limited: its
     * back-off is not at stake) and ends this hand-out of it: it is looked at again then.
     */
    private void deferBehindAnEarlierRun(T key) {
      r.deferred.add(key);
      try {
        ReconcileOutcomes.addAfter(r.queue, key, priority, EARLIER_RUN_RECHECK);
      } catch (RuntimeException e) {
        log.error("controller {}: queueing {} to wait for an earlier run's reconcile of it"
            + " threw", name, key, e);
      }
      outcomes.done(r.queue, key);
    }
  }
}
