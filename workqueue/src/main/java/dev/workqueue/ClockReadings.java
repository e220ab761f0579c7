package dev.workqueue;

import dev.workqueue.clock.Clock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The engine's clock readings: a fresh one where time matters, the latest one where it does
 * not, and the hold of the lock in which nothing is due at one reading. An operation reads the
 * clock only while something waits in the waiting room or the ready order needs the time
 * (priority aging); otherwise the latest reading serves, since every item that waits later is
 * ready after it. Guarded by the queue's lock, except {@link #latest}, which an add without the
 * lock reads.
 */
final class ClockReadings {
  private final Clock clock;
  private final ReentrantLock lock;
  private final boolean orderReadsClock;
  private final WaitingRoom<?> waiting;
  private final DuePromotion<?> due;
  private final Consumers consumers;
  /**
   * The latest clock reading: the time stamp of an entry that joins the FIFO order while
   * nothing waits (no reading needed then: every item that waits later is ready after it).
   */
  private volatile long lastNow;

  ClockReadings(Clock clock, ReentrantLock lock, boolean orderReadsClock, WaitingRoom<?> waiting,
      DuePromotion<?> due, Consumers consumers) {
    this.clock = clock;
    this.lock = lock;
    this.orderReadsClock = orderReadsClock;
    this.waiting = waiting;
    this.due = due;
    this.consumers = consumers;
    // A reading, not 0: readings are compared by their difference, which must be less than
    // 2^63 ns, and a clock may start anywhere (a FakeClock near Long.MAX_VALUE, say).
    this.lastNow = clock.nanoTime();
  }

  /** Whether the ready order needs a reading on every operation (priority aging). */
  boolean orderReadsClock() {
    return orderReadsClock;
  }

  /** Without the lock too: the latest reading. */
  long latest() {
    return lastNow;
  }

  /** A fresh reading, kept as the latest. */
  long now() {
    return lastNow = clock.nanoTime();
  }

  /** A clock reading if anything waits or the order needs one; else the latest reading. */
  long nowIfNeeded() {
    return !waiting.isEmpty() || orderReadsClock ? now() : lastNow;
  }

  /**
   * Promotes everything due, a batch per hold of the lock, and returns holding the lock, with
   * nothing due at the clock reading taken in this hold: a count read, or a shutdown made,
   * before the caller unlocks is exact at that reading ({@code size}, {@code waitingCount},
   * {@code shutDown}). Doing it in a later hold would let the clock move between the two, and
   * the count (or the shutdown's last promotion) take some of what fell due and not the rest.
   */
  void lockWithNothingDue() {
    while (true) {
      lock.lock();
      boolean settled = false;
      try {
        long now = now();
        if (!due.anyDue(now)) {
          settled = true; // loops on the head, not on what joined: merged items join nothing
          return;
        }
        consumers.wake(due.promoteBatch(now));
      } finally {
        if (!settled) {
          lock.unlock();
        }
      }
    }
  }
}
