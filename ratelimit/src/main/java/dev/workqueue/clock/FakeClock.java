package dev.workqueue.clock;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A clock that moves only when told to, for deterministic tests of anything time-driven:
 * back-off, delayed adds, timeouts, periodic metrics. Public API: use it to test your own
 * retry logic.
 *
 * <p>{@link #step(Duration)} and {@link #setTime(long)} move the time and then run, in the
 * calling thread and in deadline order, every wake-up that is due, including wake-ups that
 * those wake-ups schedule for a time already reached. When {@code step} returns, everything
 * due has happened: a delayed item is in its queue, a timed wait has been woken. A wake-up
 * scheduled for a time already reached outside a step runs at the next step (a
 * {@code step(Duration.ZERO)} runs it).
 *
 * <p>Other threads: a timed wait ({@link #awaitUntil}) never misses a step, even one that lands
 * between the waiter's reading of the time and the start of its wait. A {@code schedule} call
 * is different: a thread that read the time just before a step and schedules just after it asks
 * for a time the step has passed, and that wake-up runs at the next step. The components of this
 * toolkit schedule from their callers' threads, so in a test where worker threads add delayed
 * work while the test steps, wait until the workers are idle before a step whose effect you then
 * wait for, or keep stepping while you wait.
 *
 * <p>Thread-safe. Do not call {@code step} while holding a lock that a wake-up may need
 * (such as a queue's internal lock: you never hold those).
 */
public final class FakeClock implements Clock {
  private final ReentrantLock lock = new ReentrantLock();
  private final PriorityQueue<Wakeup> wakeups = new PriorityQueue<>();
  private volatile long now;
  private long sequence;

  /** A fake clock reading 0. */
  public FakeClock() {
    this(0);
  }

  /**
   * A fake clock reading {@code startNanos} (try values near {@link Long#MAX_VALUE}).
   *
   * @param startNanos the first reading, in nanoseconds: any value, negative ones included
   */
  public FakeClock(long startNanos) {
    this.now = startNanos;
  }

  @Override
  public long nanoTime() {
    return now;
  }

  /**
   * The current reading as a duration since reading 0; handy in assertions.
   *
   * @return {@code Duration.ofNanos(nanoTime())}; negative if the reading is negative
   */
  public Duration elapsed() {
    return Duration.ofNanos(now);
  }

  /**
   * Moves time forward by {@code d} and runs every wake-up that became due.
   *
   * @param d how far to move: zero or more ({@code Duration.ZERO} only runs what is due)
   * @throws NullPointerException if {@code d} is null
   * @throws IllegalArgumentException if {@code d} is negative (use {@link #setTime} to go back)
   */
  public void step(Duration d) {
    Checks.nonNegative(d, "d");
    long nanos = TimeMath.toNanosSaturated(d);
    lock.lock();
    try {
      now = now + nanos;
    } finally {
      lock.unlock();
    }
    runDue();
  }

  /**
   * Same as {@code step(Duration.ofMillis(millis))}.
   *
   * @param millis how many milliseconds to move: zero or more
   * @throws IllegalArgumentException if {@code millis} is negative
   */
  public void stepMillis(long millis) {
    step(Duration.ofMillis(millis));
  }

  /**
   * Sets the reading to {@code nanos}, forwards or backwards, and runs every wake-up that is
   * due. Going backwards makes nothing due; components see time not advancing.
   *
   * @param nanos the new reading, in nanoseconds: any value, earlier than the current one too
   */
  public void setTime(long nanos) {
    lock.lock();
    try {
      now = nanos;
    } finally {
      lock.unlock();
    }
    runDue();
  }

  /**
   * Wake-ups scheduled and not yet run or cancelled, including those of timed waits.
   *
   * @return how many there are; 0 when nothing is scheduled
   */
  public int pendingWakeups() {
    lock.lock();
    try {
      return wakeups.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Whether any wake-up is pending: Go's {@code HasWaiters}.
   *
   * @return true if {@link #pendingWakeups()} is not 0
   */
  public boolean hasWaiters() {
    return pendingWakeups() > 0;
  }

  /**
   * The deadline of the earliest pending wake-up, or null if none.
   *
   * @return that deadline as a reading of this clock, possibly already reached (it runs at the
   *     next step), or null if no wake-up is pending
   */
  public Long nextWakeup() {
    lock.lock();
    try {
      Wakeup head = wakeups.peek();
      return head == null ? null : head.deadline;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public long awaitUntil(Lock callerLock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    long remaining = deadlineNanos - now;
    if (remaining <= 0) {
      return remaining;
    }
    // The caller holds callerLock, so the signal below cannot run before await() releases it.
    Cancellable timer = schedule(deadlineNanos, () -> {
      callerLock.lock();
      try {
        condition.signalAll();
      } finally {
        callerLock.unlock();
      }
    });
    try {
      // A step that moved the time between the read above and schedule() ran its due wake-ups
      // before this one existed, so nobody would signal: read again. A step after schedule()
      // finds the wake-up, and its signal waits for await() to release callerLock.
      remaining = deadlineNanos - now;
      if (remaining > 0) {
        condition.await();
        remaining = deadlineNanos - now;
      }
    } finally {
      timer.cancel();
    }
    return remaining;
  }

  /**
   * Runs {@code task} on the thread of the first {@link #step}/{@link #setTime} that reaches
   * {@code deadlineNanos}. Unlike the system clock, a deadline already reached does not run at
   * once: the task runs at the next step (see the class comment).
   *
   * @param deadlineNanos when to run, on this clock
   * @param task what to run; what it throws is logged and swallowed by the step
   * @return a handle whose {@code cancel} removes the task if it has not run
   */
  @Override
  public Cancellable schedule(long deadlineNanos, Runnable task) {
    Checks.nonNull(task, "task");
    Wakeup w;
    lock.lock();
    try {
      w = new Wakeup(deadlineNanos, sequence++, task);
      wakeups.add(w);
    } finally {
      lock.unlock();
    }
    return w;
  }

  private void runDue() {
    List<Wakeup> due = new ArrayList<>();
    while (true) {
      lock.lock();
      try {
        Wakeup head = wakeups.peek();
        while (head != null && head.isDue(now)) {
          wakeups.poll();
          head.cancelled = true; // about to run: a later cancel() reports false
          due.add(head);
          head = wakeups.peek();
        }
      } finally {
        lock.unlock();
      }
      if (due.isEmpty()) {
        return;
      }
      for (Wakeup w : due) {
        SystemClock.runGuarded(w.task);
      }
      due.clear();
    }
  }

  private final class Wakeup implements Comparable<Wakeup>, Cancellable {
    final long deadline;
    final long seq;
    final Runnable task;
    boolean cancelled; // cancelled or run; guarded by lock

    Wakeup(long deadline, long seq, Runnable task) {
      this.deadline = deadline;
      this.seq = seq;
      this.task = task;
    }

    boolean isDue(long now) {
      return now - deadline >= 0;
    }

    @Override
    public int compareTo(Wakeup o) {
      int c = Long.compare(deadline - o.deadline, 0);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }

    @Override
    public boolean cancel() {
      lock.lock();
      try {
        if (cancelled) {
          return false;
        }
        cancelled = true;
        wakeups.remove(this);
        return true;
      } finally {
        lock.unlock();
      }
    }
  }
}
