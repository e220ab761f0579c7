package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * The engine's shutdown, plain or draining: either marks the queue shutting down ({@link
 * #isShuttingDown}, then the engine's callback, once); a draining shutdown then waits until
 * nothing is queued or processing, and a plain shutdown (or another draining one that gave up)
 * ends every such wait.
 *
 * <p>Guarded by the queue's lock: the queue calls {@link #signalIfDrained} under it whenever an
 * item finishes. The flag is volatile for the paths that skip the lock: an add without the lock
 * reads it before it starts, and a {@code done} without the lock after its removal ({@link
 * #recheckDrain}), so a drain that missed either sees its signal.
 */
final class Shutdown {
  private final ReentrantLock lock;
  private final Condition drained;
  private final Clock clock;
  /** Under the lock: whether nothing is queued, waiting or processing. */
  private final BooleanSupplier empty;
  /** Under the lock, once: the queue's own shutdown (adds stop, waiting items go, gets wake). */
  private final Runnable markShuttingDown;
  private volatile boolean shuttingDown; // written under the lock
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

  /** Without the lock too. */
  boolean isShuttingDown() {
    return shuttingDown;
  }

  /**
   * Without the lock, after an item left the map (or an insert that may have put it there
   * failed): a draining shutdown that looked before may have no other reason to look again.
   */
  void recheckDrain() {
    if (shuttingDown) {
      lockAndSignalIfDrained();
    }
  }

  private void markShuttingDown() {
    if (!shuttingDown) {
      shuttingDown = true;
      markShuttingDown.run();
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
    markShuttingDown();
    draining = false;
    drained.signalAll();
  }

  /**
   * {@code shutDownWithDrain}, under the lock: stops the queue and waits until everything is
   * done, for at most {@code timeout} (for good if null). Whether everything is done.
   */
  boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
    markShuttingDown();
    draining = true;
    long deadline =
        timeout == null ? 0 : TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
    while (draining && !empty.getAsBoolean()) {
      if (timeout == null) {
        drained.await();
      } else if (clock.awaitUntil(lock, drained, deadline) <= 0) {
        break;
      }
    }
    return empty.getAsBoolean();
  }
}
