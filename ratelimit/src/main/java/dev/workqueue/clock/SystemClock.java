package dev.workqueue.clock;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link System#nanoTime()} with wake-ups on a {@link ScheduledExecutorService}. */
final class SystemClock implements Clock {
  private static final Logger log = LoggerFactory.getLogger(SystemClock.class);

  /** Threads of the shared pool; it keeps none while nothing is scheduled. */
  static final String THREAD_PREFIX = "workqueue-timer-";

  static final SystemClock SHARED = new SystemClock(null);

  private final ScheduledExecutorService ownExecutor;

  /** @param executor the caller's executor, or null for the shared pool (created lazily) */
  SystemClock(ScheduledExecutorService executor) {
    this.ownExecutor = executor;
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  /**
   * A wait this short spins instead of parking ({@link #spinUntil}): a timed park oversleeps by
   * the kernel's timer slack (about 50 µs on Linux), and its park and wake-up cost the processor
   * more than a spin this long.
   */
  static final long SPIN_NANOS = 2_000;

  @Override
  public long awaitUntil(Lock lock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining <= 0) {
      return remaining;
    }
    if (remaining <= SPIN_NANOS) {
      return spinUntil(lock, deadlineNanos);
    }
    return condition.awaitNanos(remaining);
  }

  /**
   * Waits at most {@link #SPIN_NANOS} by spinning, with {@code lock} released as a condition
   * wait would release it. It is not on the condition meanwhile, so a signal sent then goes to
   * another waiter or none: the caller finds what it was about when it looks again, at most
   * {@link #SPIN_NANOS} later, as after a spurious return.
   */
  static long spinUntil(Lock lock, long deadlineNanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException(); // as a condition wait begins, with the lock still held
    }
    lock.unlock();
    try {
      long remaining;
      while ((remaining = deadlineNanos - System.nanoTime()) > 0) {
        if (Thread.interrupted()) {
          throw new InterruptedException(); // with the lock held again, as a condition wait
        }
        Thread.onSpinWait();
      }
      return remaining;
    } finally {
      lock.lock();
    }
  }

  @Override
  public Cancellable schedule(long deadlineNanos, Runnable task) {
    ScheduledExecutorService executor = ownExecutor != null ? ownExecutor : SharedPool.INSTANCE;
    Future<?> f = executor.schedule(
        () -> runGuarded(task), Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    return () -> f.cancel(false);
  }

  static void runGuarded(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException | Error e) {
      log.error("a scheduled wake-up threw; the timer thread survives", e);
    }
  }

  /** Initialization-on-demand: the pool exists only once something is scheduled. */
  private static final class SharedPool {
    static final ScheduledThreadPoolExecutor INSTANCE = create();

    private static ScheduledThreadPoolExecutor create() {
      AtomicInteger n = new AtomicInteger();
      ThreadFactory factory = r -> {
        Thread t = new Thread(r, THREAD_PREFIX + n.incrementAndGet());
        t.setDaemon(true);
        return t;
      };
      // Two threads: a slow task (a metrics provider blocking briefly) does not delay every
      // other queue's promotions. Threads exit after one idle second.
      ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(2, factory);
      e.setRemoveOnCancelPolicy(true);
      e.setKeepAliveTime(1, TimeUnit.SECONDS);
      e.allowCoreThreadTimeOut(true);
      e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      return e;
    }
  }
}
