package dev.workqueue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * A {@link Clock} over a {@link FakeClock} ({@link #time}, which the test steps) that counts
 * the wake-ups a component asks for with {@link #schedule}, and can refuse them or drop them:
 *
 * <ul>
 *   <li>{@link #counting()}: passes every {@code schedule} on, counting it. A timed wait
 *       ({@link #awaitUntil}) is passed on too, and is not counted: the fake clock schedules
 *       its own wake-up for it, which is not the component's.
 *   <li>{@link #throwing()}: every {@code schedule} throws a {@link RejectedExecutionException},
 *       as the system clock does on an executor that was shut down.
 *   <li>{@link #neverWaking()}: {@code schedule} accepts and never runs the task: a timer as
 *       late as can be.
 * </ul>
 */
final class TestClock implements Clock {
  private enum Mode { COUNT, THROW, DROP }

  final FakeClock time = new FakeClock();
  private final Mode mode;
  private final AtomicInteger schedules = new AtomicInteger();
  private final AtomicReference<Runnable> afterNextRead = new AtomicReference<>();

  private TestClock(Mode mode) {
    this.mode = mode;
  }

  static TestClock counting() {
    return new TestClock(Mode.COUNT);
  }

  static TestClock throwing() {
    return new TestClock(Mode.THROW);
  }

  static TestClock neverWaking() {
    return new TestClock(Mode.DROP);
  }

  /** How many times a component called {@link #schedule}. */
  int schedules() {
    return schedules.get();
  }

  /**
   * Runs {@code action} once, right after the next reading of this clock (so that reading
   * still returns the time before it): for a test that moves the time between two readings a
   * component takes in one operation.
   */
  void afterNextRead(Runnable action) {
    afterNextRead.set(action);
  }

  @Override
  public long nanoTime() {
    long now = time.nanoTime();
    Runnable action = afterNextRead.getAndSet(null);
    if (action != null) {
      action.run();
    }
    return now;
  }

  @Override
  public long awaitUntil(Lock lock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    return time.awaitUntil(lock, condition, deadlineNanos);
  }

  @Override
  public Cancellable schedule(long deadlineNanos, Runnable task) {
    int n = schedules.incrementAndGet();
    return switch (mode) {
      case COUNT -> time.schedule(deadlineNanos, task);
      case THROW -> throw new RejectedExecutionException("clock refused wake-up #" + n);
      case DROP -> () -> true;
    };
  }
}
