package dev.workqueue.kubernetes;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * A {@link KubernetesController}'s periodic resync: while it leads, every cached object of the
 * reconciled type once per period, on the controller's clock. Each schedule has a generation, so
 * a timer that fires after a cancel (or after a newer schedule) does nothing.
 */
final class PeriodicResync {
  private final Clock clock;
  private final long periodNanos; // 0: no periodic resync
  private final Runnable resync;
  private final BooleanSupplier active;
  private final ReentrantLock lock = new ReentrantLock();
  private Cancellable timer; // guarded by lock
  private long generation; // guarded by lock

  /**
   * @param periodNanos the period, or 0 for none
   * @param resync what a period runs
   * @param active whether resyncs go on (read before and after each)
   */
  PeriodicResync(Clock clock, long periodNanos, Runnable resync, BooleanSupplier active) {
    this.clock = clock;
    this.periodNanos = periodNanos;
    this.resync = resync;
    this.active = active;
  }

  /** Schedules the next resync one period from now (replacing a scheduled one). */
  void schedule() {
    if (periodNanos == 0) {
      return;
    }
    lock.lock();
    try {
      long g = ++generation;
      timer = clock.schedule(clock.nanoTime() + periodNanos, () -> fire(g));
    } finally {
      lock.unlock();
    }
  }

  /** Cancels the scheduled resync; a timer firing now does nothing. */
  void cancel() {
    lock.lock();
    try {
      generation++;
      if (timer != null) {
        timer.cancel();
        timer = null;
      }
    } finally {
      lock.unlock();
    }
  }

  private void fire(long g) {
    lock.lock();
    try {
      if (g != generation || !active.getAsBoolean()) {
        return; // cancelled, or superseded by a newer schedule
      }
    } finally {
      lock.unlock();
    }
    resync.run();
    if (active.getAsBoolean()) {
      schedule();
    }
  }
}
