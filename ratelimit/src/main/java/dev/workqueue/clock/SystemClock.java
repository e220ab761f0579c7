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

  @Override
  public long awaitUntil(Lock lock, Condition condition, long deadlineNanos)
      throws InterruptedException {
    long remaining = deadlineNanos - System.nanoTime();
    if (remaining <= 0) {
      return remaining;
    }
    return condition.awaitNanos(remaining);
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
