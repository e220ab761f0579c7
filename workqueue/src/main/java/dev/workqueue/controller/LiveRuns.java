package dev.workqueue.controller;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The runs whose workers have not all exited: the current one, and stopped ones whose workers
 * are finishing (a stop past its deadline). They keep one key from being reconciled by two
 * runs at once, and {@code status} reads their worker slots (busy workers, the last reconcile);
 * the last reconcile of a worker that exited is kept here.
 *
 * @param <T> the key type
 */
final class LiveRuns<T> {
  /** No reconcile has ended yet: a reading no clock gives in practice. */
  static final long NEVER = Long.MIN_VALUE;

  private final Set<ControllerRun<T>> runs = ConcurrentHashMap.newKeySet();
  /**
   * When the last reconcile of an exited worker ended; a running worker keeps its own in its
   * {@link WorkerSlot}, and adds it here when it exits.
   */
  private final AtomicLong exitedWorkersLastEnd = new AtomicLong(NEVER);

  /** A start launches the workers of {@code r}. */
  void add(ControllerRun<T> r) {
    runs.add(r);
  }

  /** The worker of {@code slot} in {@code r} exited: its last reconcile's end is kept. */
  void workerExited(ControllerRun<T> r, WorkerSlot<T> slot) {
    long end = slot.lastEnd();
    if (end != NEVER) {
      exitedWorkersLastEnd.accumulateAndGet(end, (a, b) -> ControllerRun.later(a, b, NEVER));
    }
    workerGone(r);
  }

  /** A worker of {@code r} exited (or will never run); the last one takes r off the runs. */
  void workerGone(ControllerRun<T> r) {
    if (r.exited()) {
      runs.remove(r);
    }
  }

  /**
   * Whether a worker of a run other than {@code r} (one whose stop passed its deadline, its
   * workers interrupted but not yet out) is reconciling {@code key}.
   */
  boolean reconciledByAnEarlierRun(ControllerRun<T> r, T key) {
    if (runs.size() <= 1) {
      return false;
    }
    for (ControllerRun<T> other : runs) {
      if (other != r && other.isReconciling(key)) {
        return true;
      }
    }
    return false;
  }

  /** How many workers of all live runs are reconciling now: a snapshot. */
  int busyWorkers() {
    int busy = 0;
    for (ControllerRun<T> live : runs) {
      busy += live.busyWorkers();
    }
    return busy;
  }

  /** When the last reconcile of any worker ended, or {@link #NEVER}. */
  long lastEnd() {
    long ended = NEVER;
    for (ControllerRun<T> live : runs) {
      ended = ControllerRun.later(ended, live.lastEnd(NEVER), NEVER);
    }
    // After the slots: a worker adds its end here before its run leaves the runs.
    return ControllerRun.later(ended, exitedWorkersLastEnd.get(), NEVER);
  }
}
