package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;

/**
 * The lifecycle: start, stop (from outside, or from one of the controller's own reconciles),
 * restart and awaiting the end. Each start creates a {@link ControllerRun}, the queue of that
 * run and its workers ({@link WorkerLoop}); a stop ends the run, waiting for its workers up to
 * a deadline and interrupting those still busy then. A start that fails part-way leaves the
 * controller stopped, with no key lost.
 *
 * @param <T> the key type
 */
final class ControllerLifecycle<T> {
  private final Logger log;
  private final String name;
  private final int workers;
  private final Executor executor;
  private final ThreadFactory threadFactory;
  private final Clock clock;
  private final boolean drainOnStop;
  private final boolean deferEvents;
  private final KeptKeys<T> keys;
  private final LiveRuns<T> liveRuns;
  private final ControllerNameRegistry names;
  private final WorkerLoop<T> loop;

  private final ReentrantLock lock = new ReentrantLock();
  /** Written under lock; read without it by isRunning, adds and stop. */
  private volatile ControllerRun<T> run;
  /**
   * A run stopped from inside one of its reconciles, whose workers may still be finishing:
   * the next {@code stop} waits for them and {@code start} refuses until they are gone.
   * Guarded by lock.
   */
  private volatile ControllerRun<T> stoppedFromInside; // read without the lock by awaitTermination

  ControllerLifecycle(ControllerBuilder<T> b, Logger log, KeptKeys<T> keys, LiveRuns<T> liveRuns,
      WorkerLoop<T> loop) {
    this.log = log;
    this.name = b.name;
    this.workers = b.workers;
    this.executor = b.executor;
    this.threadFactory = ControllerDefaults.threadFactory(b);
    this.clock = b.clock;
    this.drainOnStop = b.drainOnStop;
    this.deferEvents = b.deferEventsDuringBackoff;
    this.keys = keys;
    this.liveRuns = liveRuns;
    this.names = new ControllerNameRegistry(b);
    this.loop = loop;
  }

  /** The current run, or null while stopped. */
  ControllerRun<T> run() {
    return run;
  }

  void start() {
    lock.lock();
    try {
      refuseUnlessStopped();
      ControllerRun<T> r = new ControllerRun<>(keys.queueForStart(), workers, clock, deferEvents,
          LiveRuns.NEVER);
      names.claim();
      List<Thread> threads = newThreads(r);
      run = r;
      liveRuns.add(r);
      launch(r, threads);
    } finally {
      lock.unlock();
    }
  }

  /** Throws unless the controller is stopped and no worker of a run stopped inside is left. */
  private void refuseUnlessStopped() {
    if (run != null) {
      throw new IllegalStateException("controller " + name + " is already running");
    }
    if (stoppedFromInside != null) {
      int live = stoppedFromInside.live();
      if (live > 0) {
        throw new IllegalStateException("controller " + name + " is still stopping: a"
            + " reconciler called stop and " + live + " worker(s) are finishing; call"
            + " stop(timeout) to wait for them before starting again");
      }
      stoppedFromInside = null;
    }
  }

  /**
   * The worker threads of {@code r}, not started (none with an executor). The thread factory
   * may throw: then none has started, and the claimed name is given back.
   */
  private List<Thread> newThreads(ControllerRun<T> r) {
    List<Thread> threads = new ArrayList<>();
    if (executor == null) {
      try {
        for (int i = 0; i < workers; i++) {
          threads.add(threadFactory.newThread(loop.worker(r, i)));
        }
      } catch (RuntimeException | Error e) {
        names.release();
        throw e;
      }
    }
    return threads;
  }

  /** Starts the workers of {@code r}; if one fails to start, the start is aborted. */
  private void launch(ControllerRun<T> r, List<Thread> threads) {
    int launched = 0;
    try {
      for (int i = 0; i < workers; i++) {
        if (executor != null) {
          executor.execute(loop.worker(r, i));
        } else {
          threads.get(i).start();
        }
        launched++;
      }
    } catch (RuntimeException | Error e) {
      abortStart(r, workers - launched);
      throw e;
    }
  }

  /**
   * A start failed with {@code notLaunched} workers of {@code r} not launched: the controller
   * is left stopped, and no key is lost. The queue shuts down; the workers that run keep what
   * they take for the next start and exit; what they do not take, the next start takes from the
   * old queue. Under the lock.
   */
  private void abortStart(ControllerRun<T> r, int notLaunched) {
    r.aborted = true;
    r.stopping = true;
    for (int i = 0; i < notLaunched; i++) {
      liveRuns.workerGone(r); // they will never run
    }
    run = null;
    names.release();
    keys.aborted(r.queue);
    r.queue.shutDown();
  }

  boolean isRunning() {
    return run != null; // no lock: a reconciler may ask while a stop waits for it
  }

  StopResult<T> stop(Duration timeout) throws InterruptedException {
    Checks.nonNegative(timeout, "timeout");
    ControllerRun<T> current = run;
    if (current != null && current.threads.contains(Thread.currentThread())) {
      return stopFromOwnReconcile(current); // before the lock: a stop holding it waits for us
    }
    lock.lock();
    try {
      ControllerRun<T> r = run != null ? run : stoppedFromInside;
      if (r == null) {
        RateLimitingQueue<T> q = keys.queue();
        if (!q.isShuttingDown()) {
          q.shutDown(); // stopping a controller that never started: adds are ignored
        }
        return new StopResult<>(true, List.of());
      }
      StopResult<T> result = endRun(r, timeout);
      run = null;
      names.release();
      stoppedFromInside = null;
      return result;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Ends {@code r}: its queue shuts down (after draining it, with {@code drainOnStop}) and its
   * workers are awaited until the deadline, then interrupted. Under the lock.
   */
  private StopResult<T> endRun(ControllerRun<T> r, Duration timeout)
      throws InterruptedException {
    long deadline = TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
    r.stopping = true;
    addHeld(r);
    boolean drained = true;
    if (drainOnStop) {
      drained = r.queue.shutDownWithDrain(timeout);
    }
    r.queue.shutDown();
    boolean exited = r.awaitExit(deadline);
    List<T> stillRunning = r.running();
    if (!exited) {
      r.forced = true;
      r.threads.forEach(Thread::interrupt);
      log.warn("controller {}: stop deadline passed with {} reconcile(s) still running: {};"
          + " their workers were interrupted", name, stillRunning.size(), stillRunning);
    }
    return new StopResult<>(exited && drained, stillRunning);
  }

  /**
   * A reconciler of this run asked to stop. Waiting would wait for that very reconcile (and,
   * draining, for its key to be done), so it starts the stop and returns, as cancelling the
   * context does in controller-runtime: the queue shuts down, the workers finish what they are
   * reconciling (and, draining, the queued keys) and exit by themselves.
   */
  private StopResult<T> stopFromOwnReconcile(ControllerRun<T> r) {
    while (!lock.tryLock()) {
      if (r.stopping) {
        return new StopResult<>(false, List.copyOf(r.running())); // a stop ends r
      }
      Thread.yield(); // isRunning or start hold the lock only for moments
    }
    try {
      if (run == r) {
        r.stopping = true;
        addHeld(r);
        r.queue.shutDown(); // queued keys are still handed out: drained, or dropped
        run = null;
        names.release();
        stoppedFromInside = r;
        log.info("controller {}: stop called from the reconcile of {}; not waiting for the"
            + " running reconcile(s): {}", name, r.runningOn(Thread.currentThread()),
            r.running());
      }
      return new StopResult<>(false, List.copyOf(r.running()));
    } finally {
      lock.unlock();
    }
  }

  /**
   * A stop begins: the adds held by waiting retries, which the stop discards, are made now, as
   * they would have been without {@code deferEventsDuringBackoff}; and the keys that wait for
   * an earlier run's reconcile of them (in the queue's waiting room, which the stop drops) are
   * kept for the next start.
   */
  private void addHeld(ControllerRun<T> r) {
    for (T key : r.takeHeldAdds()) {
      keys.addOrKeep(r.queue, key);
    }
    if (!r.deferred.isEmpty()) {
      keys.keepAll(r.deferred);
    }
  }

  boolean awaitTermination(Duration timeout) throws InterruptedException {
    Checks.nonNegative(timeout, "timeout");
    long deadline = TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
    ControllerRun<T> r = run;
    if (r == null) {
      r = stoppedFromInside; // its workers may still be finishing
    }
    return r == null || r.awaitExit(deadline);
  }
}
