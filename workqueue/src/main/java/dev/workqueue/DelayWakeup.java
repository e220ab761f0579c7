package dev.workqueue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import java.util.concurrent.locks.Lock;

/**
 * The one clock wake-up a queue may keep armed for the head of its waiting room
 * ({@link DelayHeap}): the metrics backstop of a named queue (see {@link QueueEngine}), armed
 * while items wait and no consumer does, cancelled otherwise, so an idle queue has nothing
 * scheduled. Not thread-safe: every
 * method is called under the queue's lock, and the wake-up itself takes that lock before it
 * calls back. The clock's {@code schedule} is the caller's code: a throw ends in the queue's
 * {@link HookGuard} and the wake-up stays unarmed until the next {@link #arm}.
 *
 * <p>A wake-up that was replaced or cancelled after it had started running finds a newer
 * generation and does nothing. One that fires early (its head was cancelled) calls back all
 * the same: the callback finds nothing due and re-arms.
 */
final class DelayWakeup {
  /**
   * The wake-up comes no earlier than this after a consumer took an item while items waited: a
   * consumer that comes back within it makes the wake-up a no-op, so a busy named queue arms
   * and fires about one wake-up per this period (at 1 ms, a single consumer spent 1.35x
   * DelayQueue's CPU per delayed item, on the timer thread's wake-ups); the wake-up is for
   * metrics only, which nobody reads at a finer grain than this.
   */
  static final long GRACE_NANOS = 10_000_000;

  private final Clock clock;
  private final Lock lock;
  private final Runnable onWakeupLocked;
  private final HookGuard guard;
  private Cancellable timer;
  private long deadline;
  private long generation;
  private long lastTake;
  private boolean tookWhileWaiting;

  /**
   * @param onWakeupLocked runs under {@code lock} when the wake-up fires; it promotes what is
   *     due and arms again
   */
  DelayWakeup(Clock clock, Lock lock, Runnable onWakeupLocked, HookGuard guard) {
    this.clock = clock;
    this.lock = lock;
    this.onWakeupLocked = onWakeupLocked;
    this.guard = guard;
  }

  /** A consumer took an item at {@code now} while items waited. */
  void tookAt(long now) {
    lastTake = now;
    tookWhileWaiting = true;
  }

  /**
   * Makes the wake-up fire no later than {@code headReadyAt}, the waiting room's head, or
   * {@link #GRACE_NANOS} after a consumer's last take if that is later. A wake-up already armed
   * for that time or earlier is kept.
   */
  void armForHead(long headReadyAt) {
    long target = headReadyAt;
    if (tookWhileWaiting && lastTake + GRACE_NANOS - target > 0) {
      target = lastTake + GRACE_NANOS;
    }
    arm(target);
  }

  private void arm(long target) {
    if (timer != null && deadline - target <= 0) {
      return;
    }
    cancel();
    long g = generation;
    deadline = target;
    try {
      timer = clock.schedule(target, () -> fire(g));
    } catch (Throwable t) { // the clock's or the caller's executor: the next arm tries again
      guard.failed("the clock's schedule", t);
    }
  }

  /** Cancels the armed wake-up, if any; one already running does nothing. */
  void cancel() {
    if (timer != null) {
      Cancellable t = timer;
      timer = null;
      try {
        t.cancel();
      } catch (Throwable e) { // a late fire finds a newer generation and does nothing
        guard.failed("the clock's cancel", e);
      }
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
