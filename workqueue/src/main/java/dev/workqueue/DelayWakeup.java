package dev.workqueue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import java.util.concurrent.locks.Lock;

/**
 * The one clock wake-up a queue keeps armed for the head of its waiting room
 * ({@link DelayHeap}): armed for the earliest ready time while anything waits, cancelled when
 * nothing does, so an idle queue has nothing scheduled. Shared by the delaying and the
 * priority queue (the delaying queue arms it only as its metrics backstop). Not thread-safe: every method is called under the queue's lock, and the
 * wake-up itself takes that lock before it calls back.
 *
 * <p>A wake-up that was replaced or cancelled after it had started running finds a newer
 * generation and does nothing. One that fires early (its head was cancelled) calls back all
 * the same: the callback finds nothing due and re-arms.
 */
final class DelayWakeup {
  private final Clock clock;
  private final Lock lock;
  private final Runnable onWakeupLocked;
  private Cancellable timer;
  private long deadline;
  private long generation;

  /**
   * @param onWakeupLocked runs under {@code lock} when the wake-up fires; it promotes what is
   *     due and calls {@link #rearm} again
   */
  DelayWakeup(Clock clock, Lock lock, Runnable onWakeupLocked) {
    this.clock = clock;
    this.lock = lock;
    this.onWakeupLocked = onWakeupLocked;
  }

  /**
   * Makes the wake-up fire no later than the head's ready time, or cancels it when nothing
   * waits. A wake-up already armed for that time or earlier is kept.
   */
  void rearm(DelayHeap<?> waiting) {
    if (waiting.isEmpty()) {
      cancel();
      return;
    }
    arm(waiting.headReadyAt());
  }

  /**
   * Makes the wake-up fire no later than the clock reading {@code target}. A wake-up already
   * armed for that time or earlier is kept.
   */
  void arm(long target) {
    if (timer != null && deadline - target <= 0) {
      return;
    }
    cancel();
    long g = generation;
    deadline = target;
    timer = clock.schedule(target, () -> fire(g));
  }

  /** Cancels the armed wake-up, if any; one already running does nothing. */
  void cancel() {
    if (timer != null) {
      timer.cancel();
      timer = null;
    }
    generation++;
  }

  private void fire(long g) {
    lock.lock();
    try {
      if (g != generation) {
        return; // replaced or cancelled after it started running
      }
      timer = null;
      generation++;
      onWakeupLocked.run();
    } finally {
      lock.unlock();
    }
  }
}
