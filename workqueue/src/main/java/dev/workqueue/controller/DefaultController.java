package dev.workqueue.controller;

import dev.workqueue.PriorityItem;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The reconcile loop. Each start creates a {@link ControllerRun}: the queue of that run, its
 * workers and what they are reconciling; stop ends the run. The worker loop is {@code get} →
 * reconcile → one outcome ({@link ReconcileOutcomes}) → {@code done}, where {@code done} is
 * in a {@code finally} so no outcome, not even a fatal {@code Error}, leaves a key stuck in
 * the processing set.
 *
 * <p>On a {@link PriorityWorkQueue} the workers take keys with their priority and requeue them
 * at that priority (or the one the {@link Result} sets), as controller-runtime does: a retry
 * keeps its place in line instead of falling back to priority 0.
 */
final class DefaultController<T> implements Controller<T> {
  /**
   * The names of running controllers, per metrics provider they publish to (identity): two
   * running controllers of one name on one provider would share metric series.
   */
  private static final java.util.Map<Object, java.util.Set<String>> RUNNING_NAMES =
      new java.util.IdentityHashMap<>();

  private final Logger log;

  private final String name;
  private final ContextualReconciler<T> reconciler;
  /** The reconciler if it takes no context: then, without an MDC, none is made. */
  private final Reconciler<T> plainReconciler;
  /**
   * Whether the logging binding keeps MDC values: not slf4j-nop's or slf4j-simple's adapter,
   * whose puts would only cost the worker four strings and eight calls per reconcile.
   */
  private final boolean mdc;
  private final java.util.concurrent.atomic.AtomicLong reconcileIds =
      new java.util.concurrent.atomic.AtomicLong();
  private final int maxRetries;
  private final int workers;
  private final ThreadFactory threadFactory;
  private final Executor executor;
  private final Supplier<? extends RateLimitingQueue<T>> queueFactory;
  private final Clock clock;
  private final long reconcileTimeoutNanos;
  private final boolean drainOnStop;
  private final Duration stopTimeout;
  private final boolean deferEvents;
  private final Duration maxReconcileInterval; // null: none
  private final java.util.function.Predicate<? super T> keepReconciling;
  /** The non-no-op metrics providers this controller publishes to, where its name is claimed. */
  private final List<Object> metricsProviders = new ArrayList<>();
  /** Whether this controller's name is claimed in {@link #RUNNING_NAMES}. Lifecycle lock. */
  private boolean nameClaimed;

  private final ReconcileOutcomes<T> outcomes;
  /** No reconcile has ended yet: a reading no clock gives in practice. */
  private static final long NEVER = Long.MIN_VALUE;
  /**
   * How long a key waits before it is looked at again while a worker of an earlier run (a stop
   * past its deadline) still reconciles it; on the controller's clock.
   */
  static final Duration EARLIER_RUN_RECHECK = Duration.ofMillis(100);
  /**
   * When the last reconcile of an exited worker ended; a running worker keeps its own in its
   * {@link WorkerSlot}, and adds it here when it exits.
   */
  private final java.util.concurrent.atomic.AtomicLong exitedWorkersLastEnd =
      new java.util.concurrent.atomic.AtomicLong(NEVER);
  /**
   * The runs with workers that have not exited: the current one, and stopped ones whose
   * workers are finishing. {@link #status} reads their worker slots.
   */
  private final java.util.Set<ControllerRun<T>> liveRuns =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final ReentrantLock lifecycle = new ReentrantLock();
  /** Keys added while stopped, queued at the next start; guarded by keptLock. */
  private final java.util.Set<T> kept = new java.util.LinkedHashSet<>();
  private final ReentrantLock keptLock = new ReentrantLock();
  /** The queue of a start that failed part-way; the next start takes its keys. keptLock. */
  private RateLimitingQueue<T> abortedQueue;
  private volatile RateLimitingQueue<T> queue;
  /** Written under lifecycle; read without it by isRunning and stop. */
  private volatile ControllerRun<T> run;
  /**
   * A run stopped from inside one of its reconciles, whose workers may still be finishing:
   * the next {@code stop} waits for them and {@code start} refuses until they are gone.
   * Guarded by lifecycle.
   */
  private volatile ControllerRun<T> stoppedFromInside; // read without the lock by awaitTermination

  DefaultController(ControllerBuilder<T> b) {
    this.name = b.name;
    this.reconciler = b.reconciler;
    this.plainReconciler = b.plainReconciler;
    this.maxRetries = b.maxRetries;
    this.workers = b.workers;
    this.executor = b.executor;
    this.threadFactory = ControllerDefaults.threadFactory(b);
    this.queueFactory = ControllerDefaults.queueFactory(b);
    this.clock = b.clock;
    this.reconcileTimeoutNanos = b.reconcileTimeoutNanos;
    this.drainOnStop = b.drainOnStop;
    this.stopTimeout = b.stopTimeout;
    this.deferEvents = b.deferEventsDuringBackoff;
    this.maxReconcileInterval = b.maxReconcileInterval;
    this.keepReconciling = b.keepReconciling;
    this.log = LoggerFactory.getLogger(Controller.class.getName() + "." + name);
    // After getLogger, which binds slf4j: the adapter is the binding's from then on (one asked
    // for during another thread's binding is a stand-in that keeps values: MDC kept, no harm).
    this.mdc = b.mdcKeepsValues != null ? b.mdcKeepsValues
        : !(MDC.getMDCAdapter() instanceof NOPMDCAdapter);
    if (b.metrics != dev.workqueue.metrics.ControllerMetricsProvider.noop()) {
      metricsProviders.add(b.metrics);
    }
    if (b.queueFactory == null && b.queueMetrics != dev.workqueue.metrics.MetricsProvider.noop()
        && b.queueMetrics != b.metrics) {
      metricsProviders.add(b.queueMetrics);
    }
    this.outcomes = new ReconcileOutcomes<>(name, log, b.metrics, workers, b.maxRetries,
        b.droppedKeyHandler);
    this.queue = queueFactory.get();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void add(T key) {
    Checks.nonNull(key, "key");
    if (!held(key)) {
      addOrKeep(queue, key); // enqueue(key, q -> q.add(key)) without its allocation
    }
  }

  /** Whether an add of {@code key} is held by its back-off ({@code deferEventsDuringBackoff}). */
  private boolean held(T key) {
    ControllerRun<T> r = run;
    return r != null && r.holdAdd(key);
  }

  @Override
  public void addAfter(T key, Duration delay) {
    Checks.nonNull(key, "key");
    Checks.nonNull(delay, "delay");
    enqueue(key, q -> q.addAfter(key, delay));
  }

  @Override
  public void add(T key, AddOptions options) {
    Checks.nonNull(key, "key");
    Checks.nonNull(options, "options");
    if (options.priority() != 0 && !(queue instanceof PriorityWorkQueue)) {
      throw new IllegalArgumentException("options: priority " + options.priority() + " needs a"
          + " priority queue (ControllerBuilder.priorityQueue(true), or a queue(...) factory of"
          + " PriorityWorkQueues); controller " + name + "'s queue has no priorities");
    }
    if (!options.rateLimited() && options.after().isZero() && held(key)) {
      return;
    }
    enqueue(key, q -> {
      if (q instanceof PriorityWorkQueue<T> pq) {
        pq.add(key, options);
      } else if (options.rateLimited()) {
        q.addRateLimited(key);
      } else if (options.after().isZero()) {
        q.add(key);
      } else {
        q.addAfter(key, options.after());
      }
    });
  }

  /**
   * Adds to the current queue; a key that meets a stopped controller (its queue shut down) is
   * kept for the next start instead, so no add is lost. An add racing a stop may be both
   * queued and kept: a reconcile too many, never one too few.
   */
  private void enqueue(T key, java.util.function.Consumer<RateLimitingQueue<T>> add) {
    RateLimitingQueue<T> q = queue;
    add.accept(q);
    if (q.isShuttingDown()) {
      keepUntilStart(key, q);
    }
  }

  private void keepUntilStart(T key, RateLimitingQueue<T> seen) {
    while (true) {
      RateLimitingQueue<T> now;
      keptLock.lock();
      try {
        now = queue;
        if (now == seen || now.isShuttingDown()) {
          kept.add(key); // start queues it
          return;
        }
      } finally {
        keptLock.unlock();
      }
      now.add(key); // a start came in between: its queue is live, unless stopped again
      if (!now.isShuttingDown()) {
        return;
      }
      seen = now;
    }
  }

  RateLimitingQueue<T> queue() {
    return queue;
  }

  @Override
  public void start() {
    lifecycle.lock();
    try {
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
      if (queue.isShuttingDown()) {
        RateLimitingQueue<T> old = queue;
        RateLimitingQueue<T> fresh = queueFactory.get(); // a restart: fresh queue
        keptLock.lock();
        try {
          if (old == abortedQueue) {
            takeAll(old); // the keys a failed start left in its queue
            abortedQueue = null;
          }
          queue = fresh;
          kept.forEach(fresh::add); // what was added while stopped
          kept.clear();
        } finally {
          keptLock.unlock();
        }
      }
      ControllerRun<T> r = new ControllerRun<>(queue, workers, clock, deferEvents, NEVER);
      claimName();
      List<Thread> threads = new ArrayList<>();
      if (executor == null) {
        try {
          for (int i = 0; i < workers; i++) {
            int index = i;
            // newThread may throw: then none has started
            threads.add(threadFactory.newThread(() -> workerLoop(r, index)));
          }
        } catch (RuntimeException | Error e) {
          releaseName();
          throw e;
        }
      }
      run = r;
      liveRuns.add(r);
      int launched = 0;
      try {
        for (int i = 0; i < workers; i++) {
          if (executor != null) {
            int index = i;
            executor.execute(() -> workerLoop(r, index));
          } else {
            threads.get(i).start();
          }
          launched++;
        }
      } catch (RuntimeException | Error e) {
        abortStart(r, workers - launched);
        throw e;
      }
    } finally {
      lifecycle.unlock();
    }
  }

  /**
   * A start failed after {@code launched} workers of {@code r}: the controller is left stopped,
   * and no key is lost. The queue shuts down; the workers that run keep what they take for the
   * next start and exit; what they do not take, the next start takes from the old queue.
   * Under the lifecycle lock.
   */
  private void abortStart(ControllerRun<T> r, int notLaunched) {
    r.aborted = true;
    r.stopping = true;
    for (int i = 0; i < notLaunched; i++) {
      workerGone(r); // they will never run
    }
    run = null;
    releaseName();
    keptLock.lock();
    try {
      abortedQueue = r.queue;
    } finally {
      keptLock.unlock();
    }
    r.queue.shutDown();
  }

  /** Moves every key still queued in a shut-down {@code q} to {@link #kept}. */
  private void takeAll(RateLimitingQueue<T> q) {
    try {
      for (Optional<T> k = q.poll(Duration.ZERO); k.isPresent(); k = q.poll(Duration.ZERO)) {
        kept.add(k.get());
        q.done(k.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // what is left stays: the interrupt comes first
    }
  }

  @Override
  public boolean isRunning() {
    return run != null; // no lock: a reconciler may ask while a stop waits for it
  }

  @Override
  public StopResult<T> stop(Duration timeout) throws InterruptedException {
    Checks.nonNegative(timeout, "timeout");
    ControllerRun<T> current = run;
    if (current != null && current.threads.contains(Thread.currentThread())) {
      return stopFromOwnReconcile(current); // before the lock: a stop holding it waits for us
    }
    lifecycle.lock();
    try {
      ControllerRun<T> r = run != null ? run : stoppedFromInside;
      if (r == null) {
        if (!queue.isShuttingDown()) {
          queue.shutDown(); // stopping a controller that never started: adds are ignored
        }
        return new StopResult<>(true, List.of());
      }
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
      run = null;
      releaseName();
      stoppedFromInside = null;
      return new StopResult<>(exited && drained, stillRunning);
    } finally {
      lifecycle.unlock();
    }
  }

  /**
   * A reconciler of this run asked to stop. Waiting would wait for that very reconcile (and,
   * draining, for its key to be done), so it starts the stop and returns, as cancelling the
   * context does in controller-runtime: the queue shuts down, the workers finish what they are
   * reconciling (and, draining, the queued keys) and exit by themselves.
   */
  private StopResult<T> stopFromOwnReconcile(ControllerRun<T> r) {
    while (!lifecycle.tryLock()) {
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
        releaseName();
        stoppedFromInside = r;
        log.info("controller {}: stop called from the reconcile of {}; not waiting for the"
            + " running reconcile(s): {}", name, r.runningOn(Thread.currentThread()),
            r.running());
      }
      return new StopResult<>(false, List.copyOf(r.running()));
    } finally {
      lifecycle.unlock();
    }
  }

  /**
   * Claims this controller's name on each metrics provider it publishes to, or refuses the
   * start if another running controller holds it there. Under the lifecycle lock.
   */
  private void claimName() {
    synchronized (RUNNING_NAMES) {
      for (Object p : metricsProviders) {
        if (RUNNING_NAMES.getOrDefault(p, java.util.Set.of()).contains(name)) {
          throw new IllegalStateException("another controller named " + name + " is running"
              + " on the same metrics provider; their metric series would be one: give each"
              + " controller its own name (or its own provider)");
        }
      }
      for (Object p : metricsProviders) {
        RUNNING_NAMES.computeIfAbsent(p, k -> new java.util.HashSet<>()).add(name);
      }
      nameClaimed = true;
    }
  }

  /** Gives the name back at the end of a run. Under the lifecycle lock. */
  private void releaseName() {
    if (!nameClaimed) {
      return;
    }
    synchronized (RUNNING_NAMES) {
      for (Object p : metricsProviders) {
        java.util.Set<String> names = RUNNING_NAMES.get(p);
        names.remove(name);
        if (names.isEmpty()) {
          RUNNING_NAMES.remove(p);
        }
      }
      nameClaimed = false;
    }
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    Checks.nonNegative(timeout, "timeout");
    long deadline = TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout));
    ControllerRun<T> r = run;
    if (r == null) {
      r = stoppedFromInside; // its workers may still be finishing
    }
    return r == null || r.awaitExit(deadline);
  }

  @Override
  public ControllerStatus status() {
    ControllerRun<T> r = run;
    RateLimitingQueue<T> q = queue;
    // Waiting first: a key that falls due in between is then counted twice, not missed.
    int waiting = q.isShuttingDown() ? 0 : q.waitingCount();
    int queued = q.isShuttingDown() ? 0 : q.size();
    int busy = 0;
    long ended = NEVER;
    for (ControllerRun<T> live : liveRuns) {
      busy += live.busyWorkers();
      ended = ControllerRun.later(ended, live.lastEnd(NEVER), NEVER);
    }
    // After the slots: a worker adds its end here before its run leaves liveRuns.
    ended = ControllerRun.later(ended, exitedWorkersLastEnd.get(), NEVER);
    java.util.Optional<Duration> since = ended == NEVER ? java.util.Optional.empty()
        : java.util.Optional.of(Duration.ofNanos(Math.max(0, clock.nanoTime() - ended)));
    return new ControllerStatus(r != null, workers, r == null ? 0 : r.live(),
        busy, queued, waiting, since);
  }

  @Override
  public void close() {
    boolean interrupted = Thread.interrupted(); // stop first; the caller gets it back
    try {
      stop(stopTimeout);
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Whether a queue's {@code get} that threw was logged; once per controller. */
  private volatile boolean warnedQueue;

  private void workerLoop(ControllerRun<T> r, int index) {
    Thread self = Thread.currentThread();
    WorkerSlot<T> slot = r.slot(index);
    slot.thread = self;
    r.threads.add(self);
    try {
      while (!r.forced) {
        T key;
        int priority = 0;
        try {
          if (r.queue instanceof PriorityWorkQueue<T> pq) {
            Optional<PriorityItem<T>> next = pq.getWithPriority();
            if (next.isEmpty()) {
              return;
            }
            key = next.get().item();
            priority = next.get().priority();
          } else {
            Optional<T> next = r.queue.get();
            if (next.isEmpty()) {
              return;
            }
            key = next.get();
          }
        } catch (InterruptedException e) {
          if (r.stopping) {
            return;
          }
          log.warn("controller {}: worker {} interrupted while waiting; it exits", name,
              self.getName());
          return;
        } catch (RuntimeException e) {
          // The queue (or a wrapper of it) threw: the worker survives, as it does a reconciler's
          // exception, so the controller keeps the workers it reports.
          if (r.stopping) {
            return;
          }
          if (!warnedQueue) {
            warnedQueue = true;
            log.error("controller {}: taking a key from the queue threw; worker {} goes on"
                + " (logged once per controller)", name, self.getName(), e);
          }
          continue;
        }
        if (r.aborted) {
          keepUntilStart(key, r.queue); // a failed start: the key waits for the next one
          doneGuarded(r.queue, key);
          return;
        }
        if (r.stopping && !drainOnStop) {
          doneGuarded(r.queue, key); // stopping without drain: the queued rest is dropped
          return;
        }
        if (liveRuns.size() > 1 && reconciledByAnEarlierRun(r, key)) {
          // A stop past its deadline left a reconcile of this key running: it waits, so
          // that one key is never reconciled twice at once, across runs too.
          deferBehindAnEarlierRun(r, key, priority);
          continue;
        }
        if (!r.deferred.isEmpty()) {
          r.deferred.remove(key);
        }
        slot.claim(key);
        if (r.forced) {
          // A stop past its deadline came between the take and the claim: a later run may
          // have missed the claim, so this worker backs out; the key waits for the next start.
          slot.reconciling(null);
          keepUntilStart(key, r.queue);
          doneGuarded(r.queue, key);
          return;
        }
        outcomes.reconcileStarted();
        try {
          reconcileOnce(r, slot, key, priority);
        } finally {
          outcomes.reconcileEnded();
          slot.reconciling(null);
        }
        if (Thread.interrupted() && r.forced) {
          return; // interrupted by a stop past its deadline
        }
      }
    } finally {
      r.threads.remove(self);
      slot.thread = null; // an executor's thread goes on to other tasks
      long end = slot.lastEnd();
      if (end != NEVER) {
        exitedWorkersLastEnd.accumulateAndGet(end, (a, b) -> ControllerRun.later(a, b, NEVER));
      }
      workerGone(r);
    }
  }

  /**
   * Whether a worker of a run other than {@code r} (one whose stop passed its deadline, its
   * workers interrupted but not yet out) is reconciling {@code key}.
   */
  private boolean reconciledByAnEarlierRun(ControllerRun<T> r, T key) {
    for (ControllerRun<T> other : liveRuns) {
      if (other != r && other.isReconciling(key)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Queues {@code key} again after {@link #EARLIER_RUN_RECHECK} (not rate-limited: its
   * back-off is not at stake) and ends this hand-out of it: it is looked at again then.
   */
  private void deferBehindAnEarlierRun(ControllerRun<T> r, T key, int priority) {
    r.deferred.add(key);
    try {
      ReconcileOutcomes.addAfter(r.queue, key, priority, EARLIER_RUN_RECHECK);
    } catch (RuntimeException e) {
      log.error("controller {}: queueing {} to wait for an earlier run's reconcile of it"
          + " threw", name, key, e);
    }
    doneGuarded(r.queue, key);
  }

  /** A worker of {@code r} exited (or will never run); the last one takes r off liveRuns. */
  private void workerGone(ControllerRun<T> r) {
    if (r.exited()) {
      liveRuns.remove(r);
    }
  }

  /**
   * One reconcile and its outcome; {@code done} always. A context (its attempt asks the limiter,
   * its id takes a shared counter) is made only if something reads it: a {@link
   * ContextualReconciler}, or an MDC that keeps values; the MDC's four strings likewise.
   */
  private void reconcileOnce(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority) {
    RateLimitingQueue<T> q = r.queue;
    r.reconciling(key);
    if (plainReconciler != null && !mdc) {
      reconcileOnce(r, slot, key, priority, null);
      return;
    }
    int requeues;
    try {
      requeues = q.numRequeues(key);
    } catch (RuntimeException e) { // a custom limiter: the reconcile runs all the same
      requeues = 0;
    }
    Context context = new Context(name, reconcileIds.incrementAndGet(), requeues + 1,
        maxRetries >= 0 && requeues >= maxRetries, priority);
    if (!mdc) {
      reconcileOnce(r, slot, key, priority, context);
      return;
    }
    MDC.put(ReconcileContext.MDC_CONTROLLER, name);
    MDC.put(ReconcileContext.MDC_KEY, String.valueOf(key));
    MDC.put(ReconcileContext.MDC_RECONCILE_ID, Long.toString(context.reconcileId()));
    MDC.put(ReconcileContext.MDC_ATTEMPT, Integer.toString(context.attempt()));
    try {
      reconcileOnce(r, slot, key, priority, context); // the outcome's log lines carry the MDC
    } finally {
      MDC.remove(ReconcileContext.MDC_CONTROLLER);
      MDC.remove(ReconcileContext.MDC_KEY);
      MDC.remove(ReconcileContext.MDC_RECONCILE_ID);
      MDC.remove(ReconcileContext.MDC_ATTEMPT);
    }
  }

  /** A reconcile's context. */
  private record Context(String controller, long reconcileId, int attempt, boolean lastAttempt,
      int priority) implements ReconcileContext {}

  /** The reconcile of {@code key}; {@code context} is null if nothing reads it. */
  private void reconcileOnce(ControllerRun<T> r, WorkerSlot<T> slot, T key, int priority,
      Context context) {
    RateLimitingQueue<T> q = r.queue;
    boolean timed = outcomes.timesReconciles();
    long start = timed || reconcileTimeoutNanos > 0 ? clock.nanoTime() : 0;
    ReconcileWatchdog watchdog =
        reconcileTimeoutNanos > 0 ? new ReconcileWatchdog(Thread.currentThread()) : null;
    Cancellable timer = watchdog == null ? null
        : clock.schedule(TimeMath.deadline(start, reconcileTimeoutNanos), watchdog);
    Result result = null;
    Throwable failure = null;
    VirtualMachineError fatal = null;
    try {
      result = context == null
          ? plainReconciler.reconcile(key) : reconciler.reconcile(key, context);
    } catch (StackOverflowError e) {
      failure = e; // the stack is unwound by now: safe to go on
    } catch (VirtualMachineError e) {
      failure = e;
      fatal = e;
    } catch (Exception e) {
      failure = e;
    } catch (Error e) {
      failure = e;
    } finally {
      if (watchdog != null) {
        timer.cancel();
        if (watchdog.finish()) {
          Thread.interrupted(); // the watchdog's interrupt, delivered: clear it
          // The timeout is the failure, whatever the interrupt made the reconciler throw
          // (usually an InterruptedException): that stays as its cause. An Error, or a
          // TerminalException (no retry asked for), stays as it is.
          if (!(failure instanceof Error) && !(failure instanceof TerminalException)) {
            Throwable cause = failure;
            failure = new java.util.concurrent.TimeoutException(
                "reconcile of " + key + " exceeded " + Duration.ofNanos(reconcileTimeoutNanos));
            if (cause != null) {
              failure.initCause(cause);
            }
          }
        }
      }
    }
    long end = NEVER;
    boolean backingOff = false;
    try {
      if (failure instanceof Error) {
        outcomes.panicked();
      }
      backingOff = outcomes.apply(q, key, priority, result, failure);
      end = clock.nanoTime();
      if (timed) {
        outcomes.took(end - start);
      }
    } catch (RuntimeException | Error e) {
      // The caller's code around the reconcile (a dropped-key handler, a rate limiter, a
      // metrics provider) threw: the key is still done below and the worker goes on.
      if (e instanceof VirtualMachineError vme && fatal == null) {
        fatal = vme;
      } else {
        log.error("controller {}: handling the outcome of reconciling {} threw; the key is"
            + " done and the worker goes on", name, key, e);
      }
    } finally {
      afterOutcome(r, key, priority, backingOff);
      doneGuarded(q, key);
      slot.ended(end != NEVER ? end : clock.nanoTime()); // one reading when all went well
    }
    if (fatal != null) {
      // The key is done and requeued; this worker ends, as the JVM may be broken.
      log.error("controller {}: reconcile of {} threw {}; worker {} exits, the other workers"
          + " go on", name, key, fatal, Thread.currentThread().getName());
      throw fatal;
    }
  }

  /**
   * Before {@code done}: an add held during the reconcile is made now unless its back-off
   * retry covers it (so {@code done} queues it again at once, as client-go does with an add
   * while processing); and, with a longest reconcile interval, the key's next reconcile is
   * scheduled. Either may call the caller's code (queue hooks, the keep filter): guarded.
   */
  private void afterOutcome(ControllerRun<T> r, T key, int priority, boolean backingOff) {
    try {
      if (r.settled(key, backingOff)) {
        addNow(r, key); // done queues it again at once, as client-go does an add while processing
      }
      if (maxReconcileInterval != null && !r.stopping && keep(key)) {
        // a sooner retry already waiting stays
        ReconcileOutcomes.addAfter(r.queue, key, priority, maxReconcileInterval);
      }
    } catch (RuntimeException e) {
      log.error("controller {}: requeueing {} after its reconcile threw; the worker goes on",
          name, key, e);
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
      addNow(r, key);
    }
    if (!r.deferred.isEmpty()) { // they wait in the queue's waiting room, which a stop drops
      keptLock.lock();
      try {
        kept.addAll(r.deferred);
      } finally {
        keptLock.unlock();
      }
    }
  }

  /** An add to {@code r}'s queue that a stop under way keeps for the next start. */
  private void addNow(ControllerRun<T> r, T key) {
    addOrKeep(r.queue, key);
  }

  /** {@code q.add(key)}; if {@code q} is shut down, the key is kept for the next start. */
  private void addOrKeep(RateLimitingQueue<T> q, T key) {
    q.add(key);
    if (q.isShuttingDown()) {
      keepUntilStart(key, q);
    }
  }

  private boolean keep(T key) {
    try {
      return keepReconciling.test(key);
    } catch (RuntimeException e) {
      log.error("controller {}: the maxReconcileInterval filter threw for {}; the key is"
          + " scheduled", name, key, e);
      return true;
    }
  }

  /** {@code done}, which must not cost the worker: a queue (or wrapper) that throws is logged. */
  private void doneGuarded(RateLimitingQueue<T> q, T key) {
    try {
      q.done(key);
    } catch (RuntimeException e) {
      log.error("controller {}: done({}) threw; the worker goes on", name, key, e);
    }
  }

}
