package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The engine's shutdown, plain or draining: either marks the queue shutting down (through the
 * engine's callback); a draining shutdown then waits until nothing is queued or processing,
 * and a plain shutdown (or another draining one that gave up) ends every such wait.
 *
 * <p>Guarded by the queue's lock: the queue calls {@link #signalIfDrained} under it whenever an
 * item finishes.
 */
final class Shutdown {
  private final ReentrantLock lock;
  private final Condition drained;
  private final Clock clock;
  /** Under the lock: whether nothing is queued, waiting or processing. */
  private final BooleanSupplier empty;
  /** Under the lock: the queue's own shutdown, idempotent. */
  private final Runnable markShuttingDown;
  private boolean draining;

  Shutdown(ReentrantLock lock, Clock clock, BooleanSupplier empty, Runnable markShuttingDown) {
    this.lock = lock;
    this.drained = lock.newCondition();
    this.clock = clock;
    this.empty = empty;
    this.markShuttingDown = markShuttingDown;
  }

  /** Under the lock, after an item finished: wakes a draining shutdown once all are done. */
  void signalIfDrained() {
    if (draining && empty.getAsBoolean()) {
      drained.signalAll();
    }
  }

  /** {@link #signalIfDrained} from a thread that does not hold the lock. */
  void lockAndSignalIfDrained() {
    lock.lock();
    try {
      signalIfDrained();
    } finally {
      lock.unlock();
    }
  }

  // The three shutdowns run in the caller's one hold of the lock (the engine takes it so that
  // nothing is due at its clock reading): a drain's wait through the clock lets go of that hold
  // once, as Clock#awaitUntil expects, and the queue is free to others meanwhile.

  /** {@code shutDown}, under the lock: stops the queue and ends any draining wait. */
  void shutDown() {
    markShuttingDown.run();
    draining = false;
    drained.signalAll();
  }

  /**
   * {@code shutDownWithDrain()}, under the lock: stops the queue and waits until everything is
   * done.
   */
  void shutDownWithDrain() throws InterruptedException {
    markShuttingDown.run();
    draining = true;
    while (draining && !empty.getAsBoolean()) {
      drained.await();
    }
  }

  /** {@code shutDownWithDrain(timeout)}, under the lock: as above, for at most {@code timeout}. */
  boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
    Checks.nonNull(timeout, "timeout");
    markShuttingDown.run();
    draining = true;
    long deadline = TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
    while (draining && !empty.getAsBoolean()) {
      if (clock.awaitUntil(lock, drained, deadline) <= 0) {
        break;
      }
    }
    return empty.getAsBoolean();
  }
}
