package dev.workqueue.clock;

import dev.workqueue.internal.Checks;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * The time source of every component in the toolkit: it reads time, waits for a deadline and
 * schedules wake-ups. Components take a {@code Clock} instead of calling
 * {@code System.nanoTime()} so that a test can drive them with a {@link FakeClock} and never
 * sleep.
 *
 * <p>Readings are {@code System.nanoTime()}-style: only differences between readings mean
 * anything, and they may wrap; compare two readings with {@code a - b < 0}, never {@code a < b}.
 *
 * <p>Implementations are thread-safe.
 */
public interface Clock {

  /**
   * The current reading in nanoseconds.
   *
   * @return the reading; meaningful only as a difference from another reading of this clock
   */
  long nanoTime();

  /**
   * Waits on {@code condition}, which the caller holds {@code lock} of, until it is signalled,
   * the thread is interrupted, or this clock reaches {@code deadlineNanos}; spurious returns
   * are possible, as with {@link Condition#awaitNanos}. Callers loop:
   *
   * <pre>{@code
   * while (!ready()) {
   *   if (clock.awaitUntil(lock, notEmpty, deadline) <= 0) return timedOut();
   * }
   * }</pre>
   *
   * @param lock the lock of {@code condition}, held by the caller (once); released while
   *     waiting
   * @param condition what to wait on; a signal to it ends the wait early, except in the last
   *     microseconds of a wait that the clock spins rather than parks ({@link #system()})
   * @param deadlineNanos the reading of this clock at which the wait ends
   * @return an estimate of the nanoseconds left until the deadline; zero or less once reached
   * @throws InterruptedException if the thread is interrupted while waiting
   */
  long awaitUntil(Lock lock, Condition condition, long deadlineNanos) throws InterruptedException;

  /**
   * Runs {@code task} once this clock reaches {@code deadlineNanos} (at once if already
   * reached). The task must be short and must not throw; it runs on a thread of the clock's
   * scheduler (the system clock) or in the thread that advances the clock (the fake clock),
   * never in the caller of this method. A task may call {@code schedule} again.
   *
   * @param deadlineNanos the reading of this clock at which {@code task} runs
   * @param task the wake-up to run once
   * @return a handle that calls the wake-up off if it has not run yet
   */
  Cancellable schedule(long deadlineNanos, Runnable task);

  /**
   * The real clock. Wake-ups run on one shared, bounded pool of daemon threads named
   * {@code workqueue-timer-N} that exits when nothing is scheduled, so an idle component owns
   * no thread. An {@link #awaitUntil} with 2 µs or less to go spins, with the lock released,
   * instead of parking: a timed park oversleeps by the kernel's timer slack (about 50 µs on
   * Linux). A signal sent during such a spin does not end it early.
   *
   * @return the shared system clock, the same instance on every call
   */
  static Clock system() {
    return SystemClock.SHARED;
  }

  /**
   * The real clock, with wake-ups run on {@code executor} instead of the shared pool. The
   * caller owns the executor and shuts it down.
   *
   * @param executor where the wake-ups run; owned by the caller
   * @return a new system clock scheduling its wake-ups on {@code executor}
   * @throws NullPointerException if {@code executor} is null
   */
  static Clock system(ScheduledExecutorService executor) {
    return new SystemClock(Checks.nonNull(executor, "executor"));
  }
}
