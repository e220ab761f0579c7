package dev.workqueue.kubernetes;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The start and stop callbacks of a {@link LeaseElector}, on one thread of their own, so that
 * a long start (starting the workers, replaying every cache) does not hold up the renewals.
 *
 * <p>Order: one thread runs the callbacks in the order they were queued, so a stop never runs
 * before, or at the same time as, the start it ends; if leadership ends while the start still
 * runs, the stop runs once the start returned. A start is not interrupted.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} are called by the elector's loop thread,
 * or by {@code LeaseElector.stop} once that thread has ended.
 */
final class LeaderCallbacks {
  private static final Logger log = LoggerFactory.getLogger(LeaderCallbacks.class);

  private final Runnable onStart;
  private final Runnable onStop;
  private final String describe;
  private final ExecutorService thread;
  private volatile boolean open; // a start queued, its stop not yet

  LeaderCallbacks(Runnable onStart, Runnable onStop, String threadName, String describe) {
    this.onStart = onStart;
    this.onStop = onStop;
    this.describe = describe;
    this.thread = DaemonThreads.single(threadName);
  }

  /**
   * Queues the start callback of a new leadership and returns at once.
   *
   * @param failed run on the callbacks thread if the start callback throws
   */
  void start(Runnable failed) {
    open = true;
    thread.execute(() -> {
      try {
        onStart.run();
      } catch (RuntimeException e) {
        log.error("lease {}: the start callback threw; stepping down", describe, e);
        failed.run();
      }
    });
  }

  /**
   * Queues the stop callback behind the start of the leadership it ends, and waits until it
   * ran (so until the start returned, too). Nothing if no leadership is open.
   *
   * @throws InterruptedException if interrupted while waiting: the stop still runs, later
   */
  void stop() throws InterruptedException {
    if (!open) {
      return;
    }
    open = false;
    Future<?> stopped = thread.submit(() -> {
      try {
        onStop.run();
      } catch (RuntimeException e) {
        log.error("lease {}: the stop callback threw", describe, e);
      }
    });
    try {
      stopped.get();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause()); // not thrown: the task catches
    }
  }

  /** Waits until the queued callbacks ran, then ends the thread. */
  void close() throws InterruptedException {
    thread.shutdown();
    while (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
      log.warn("lease {}: still waiting for a leader callback to return", describe);
    }
  }
}
