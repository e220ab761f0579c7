package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.trace.ReconcileTracer;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Builds a {@link Controller}. Setters check their argument at once. Only the reconciler is
 * required; the defaults follow controller-runtime.
 *
 * @param <T> the key type
 */
public final class ControllerBuilder<T> {
  final String name;
  ContextualReconciler<T> reconciler;
  /** The reconciler if given as a {@link Reconciler}: no context is made for it. */
  Reconciler<T> plainReconciler;
  int workers = 1;
  ThreadFactory threadFactory;
  Executor executor;
  Supplier<? extends RateLimitingQueue<T>> queueFactory;
  RateLimiter<? super T> rateLimiter;
  Clock clock = Clock.system();
  MetricsProvider queueMetrics = MetricsProvider.noop();
  ControllerMetricsProvider metrics = ControllerMetricsProvider.noop();
  long reconcileTimeoutNanos; // 0 = none
  int maxRetries = -1; // -1 = unlimited
  DroppedKeyHandler<? super T> droppedKeyHandler;
  boolean drainOnStop;
  boolean priorityQueue;
  Duration stopTimeout = Duration.ofSeconds(30);
  boolean deferEventsDuringBackoff;
  Duration maxReconcileInterval; // null = none
  Predicate<? super T> keepReconciling = key -> true;
  /** Null unless traced. */
  ReconcileTracing<T> tracing;
  /** Whether the logging MDC keeps values; null (outside tests): ask the slf4j binding. */
  Boolean mdcKeepsValues;

  ControllerBuilder(String name) {
    Checks.nonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
  }

  /**
   * The reconciler. Required.
   *
   * @param reconciler called by the workers with each key, never for one key by two at once
   * @return this builder
   * @throws NullPointerException if {@code reconciler} is null
   */
  public ControllerBuilder<T> reconciler(Reconciler<T> reconciler) {
    Checks.nonNull(reconciler, "reconciler");
    this.reconciler = (key, context) -> reconciler.reconcile(key);
    this.plainReconciler = reconciler;
    return this;
  }

  /**
   * The reconciler, given each key with its {@link ReconcileContext} (attempt, last attempt,
   * priority). Required, or {@link #reconciler(Reconciler)}.
   *
   * @param reconciler called by the workers with each key, never for one key by two at once
   * @return this builder
   * @throws NullPointerException if {@code reconciler} is null
   */
  public ControllerBuilder<T> reconciler(ContextualReconciler<T> reconciler) {
    this.reconciler = Checks.nonNull(reconciler, "reconciler");
    this.plainReconciler = null;
    return this;
  }

  /**
   * How many keys are reconciled at once: controller-runtime's
   * {@code MaxConcurrentReconciles}. Default 1.
   *
   * @param workers the number of worker loops; at least 1
   * @return this builder
   * @throws IllegalArgumentException if {@code workers < 1}
   */
  public ControllerBuilder<T> workers(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, was " + workers);
    }
    this.workers = workers;
    return this;
  }

  /**
   * Where worker threads come from. Default: daemon platform threads named {@code
   * workqueue-worker-<name>-<n>}; {@link #virtualThreads} gives virtual ones of the same names.
   *
   * @param factory makes one thread per worker at every start; not with {@link #executor}
   * @return this builder
   * @throws NullPointerException if {@code factory} is null
   */
  public ControllerBuilder<T> threadFactory(ThreadFactory factory) {
    this.threadFactory = Checks.nonNull(factory, "factory");
    return this;
  }

  /**
   * Workers on virtual threads (Java 21 or later), named {@code workqueue-worker-<name>-<n>} as
   * the default platform threads are (a plain {@code Thread.ofVirtual().factory()} names none).
   * The toolkit is built for Java 17, so this looks the virtual-thread API up at run time.
   *
   * @return this builder
   * @throws UnsupportedOperationException on a Java without virtual threads (17 to 20)
   */
  public ControllerBuilder<T> virtualThreads() {
    return threadFactory(ControllerDefaults.virtualThreads(name));
  }

  /**
   * Runs the worker loops on {@code executor} instead of threads of their own (each worker is
   * one long-running task). The executor must be able to run all workers at once.
   *
   * @param executor runs each worker loop as a task until the controller stops; the caller
   *     owns it; not with {@link #threadFactory}
   * @return this builder
   * @throws NullPointerException if {@code executor} is null
   */
  public ControllerBuilder<T> executor(Executor executor) {
    this.executor = Checks.nonNull(executor, "executor");
    return this;
  }

  /**
   * The queue, made afresh at build and at every restart. Default: a rate-limiting queue (or a
   * priority queue, see {@link #priorityQueue}) named after the controller, on
   * {@link #rateLimiter} and {@link #clock}, with {@link #queueMetricsProvider}. A supplier of
   * {@link dev.workqueue.PriorityWorkQueue}s gets the priority handling too.
   *
   * @param factory makes a new, running queue on each call; not with {@link #rateLimiter},
   *     {@link #queueMetricsProvider} or {@link #priorityQueue}
   * @return this builder
   * @throws NullPointerException if {@code factory} is null
   */
  public ControllerBuilder<T> queue(Supplier<? extends RateLimitingQueue<T>> factory) {
    this.queueFactory = Checks.nonNull(factory, "factory");
    return this;
  }

  /**
   * Whether the default queue is a {@link dev.workqueue.PriorityWorkQueue} (controller-runtime's
   * {@code UsePriorityQueue}, its default since v0.23) instead of a plain rate-limiting queue:
   * keys added with {@link Controller#add(Object, dev.workqueue.PriorityWorkQueue.AddOptions)}
   * are reconciled highest priority first, and requeues keep their priority. Same limiter,
   * clock and metrics as the default queue; aging on at its default threshold. Default false,
   * the client-go queue.
   *
   * @param usePriorityQueue true for a priority queue as the default queue
   * @return this builder
   */
  public ControllerBuilder<T> priorityQueue(boolean usePriorityQueue) {
    this.priorityQueue = usePriorityQueue;
    return this;
  }

  /**
   * The limiter of the default queue. Default: a fresh
   * {@link RateLimiters#defaultControllerRateLimiter(Clock)} per queue (exponential 5 ms to
   * 1000 s per key, and 10 per second with bursts of 100 overall).
   *
   * @param limiter gives the delay of every rate-limited requeue; this one instance serves
   *     every queue the controller makes, so its back-off state survives a restart
   * @return this builder
   * @throws NullPointerException if {@code limiter} is null
   */
  public ControllerBuilder<T> rateLimiter(RateLimiter<? super T> limiter) {
    this.rateLimiter = Checks.nonNull(limiter, "limiter");
    return this;
  }

  /**
   * The clock of timeouts, metrics and the default queue. Default: the system clock.
   *
   * @param clock the time source; tests pass a {@code FakeClock}
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   */
  public ControllerBuilder<T> clock(Clock clock) {
    this.clock = Checks.nonNull(clock, "clock");
    return this;
  }

  /**
   * Where the default queue's metrics go (named after the controller). Default: none.
   *
   * @param provider creates the work queue metrics of each queue the controller makes
   * @return this builder
   * @throws NullPointerException if {@code provider} is null
   */
  public ControllerBuilder<T> queueMetricsProvider(MetricsProvider provider) {
    this.queueMetrics = Checks.nonNull(provider, "provider");
    return this;
  }

  /**
   * Where the controller's own metrics go. Default: none.
   *
   * @param provider creates the reconcile metrics, once, when the controller is built
   * @return this builder
   * @throws NullPointerException if {@code provider} is null
   */
  public ControllerBuilder<T> metricsProvider(ControllerMetricsProvider provider) {
    this.metrics = Checks.nonNull(provider, "provider");
    return this;
  }

  /**
   * A limit on each reconcile: at the deadline the worker thread is interrupted and the
   * reconcile counts as failed (requeued with back-off) whatever it returns. Default: none.
   *
   * @param timeout the longest a reconcile may take, on the controller's clock; positive
   * @return this builder
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is not positive
   */
  public ControllerBuilder<T> reconcileTimeout(Duration timeout) {
    this.reconcileTimeoutNanos = TimeMath.delayNanos(Checks.positive(timeout, "timeout"));
    return this;
  }

  /**
   * Gives up on a key once a reconcile fails after it was requeued {@code maxRetries} times:
   * the key is forgotten and {@code handler} told (client-go's example controller drops a key
   * after 5). Default: retry forever.
   *
   * @param maxRetries how many rate-limited requeues a key gets before a failure drops it
   *     ({@link dev.workqueue.RateLimitingQueue#numRequeues}); 0 drops it at its first failure
   * @param handler told about each dropped key, in the worker thread
   * @return this builder
   * @throws NullPointerException if {@code handler} is null
   * @throws IllegalArgumentException if {@code maxRetries < 0}
   */
  public ControllerBuilder<T> maxRetries(int maxRetries, DroppedKeyHandler<? super T> handler) {
    if (maxRetries < 0) {
      throw new IllegalArgumentException("maxRetries must not be negative, was " + maxRetries);
    }
    this.droppedKeyHandler = Checks.nonNull(handler, "handler");
    this.maxRetries = maxRetries;
    return this;
  }

  /**
   * Whether a key's back-off holds against adds of it while it is failing. By default (and in
   * client-go) an {@link Controller#add add} reconciles the key at once, back-off or not, so a
   * reconcile that fails after writing the object (its own status update comes back as a watch
   * event) runs again straight away, as fast as the API server answers. With this on, an add
   * of a key whose last reconcile asked for back-off (it threw, or returned
   * {@link Result#requeue()}) waits for that retry, which reconciles the latest state anyway; an
   * add during such a reconcile does too. Adds of a key that succeeded, was dropped past its
   * retries, or asked for {@link Result#requeueAfter} still reconcile it at once; so does any
   * add after a restart. Applies to {@link Controller#add(Object)} and to
   * {@link Controller#add(Object, dev.workqueue.PriorityWorkQueue.AddOptions)} without a delay
   * or rate limit; {@code addAfter} is never held. Default false.
   *
   * @param defer true to keep a failing key's back-off against adds
   * @return this builder
   */
  public ControllerBuilder<T> deferEventsDuringBackoff(boolean defer) {
    this.deferEventsDuringBackoff = defer;
    return this;
  }

  /**
   * Reconciles every key at least once per {@code interval} (JOSDK's
   * {@code maxReconciliationInterval}): after each reconcile the key is also added after
   * {@code interval}, whatever the outcome, a key dropped past its {@link #maxRetries} included.
   * A sooner requeue (a back-off, a shorter {@link Result#requeueAfter}, an add) comes first,
   * and the key's next reconcile schedules the next interval; a longer requeue-after is cut to
   * {@code interval}. These adds count as retries in {@code workqueue_retries_total}, as every
   * {@code addAfter} does in client-go. For keys that can go away (deleted objects) use
   * {@link #maxReconcileInterval(Duration, Predicate)}. Default: none.
   *
   * @param interval the longest time between two reconciles of a key; positive
   * @return this builder
   * @throws NullPointerException if {@code interval} is null
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public ControllerBuilder<T> maxReconcileInterval(Duration interval) {
    return maxReconcileInterval(interval, key -> true);
  }

  /**
   * {@link #maxReconcileInterval(Duration)} for the keys {@code keep} accepts, asked after each
   * reconcile: a key it refuses (say, its object is gone from the cache) is not scheduled
   * again. If {@code keep} throws, the key is scheduled and the exception logged.
   *
   * @param interval the longest time between two reconciles of a key; positive
   * @param keep whether a key just reconciled is still to be reconciled every interval
   * @return this builder
   * @throws NullPointerException if {@code interval} or {@code keep} is null
   * @throws IllegalArgumentException if {@code interval} is not positive
   */
  public ControllerBuilder<T> maxReconcileInterval(Duration interval,
      Predicate<? super T> keep) {
    Checks.positive(interval, "interval");
    Checks.nonNull(keep, "keep"); // both checked before either is set
    this.maxReconcileInterval = interval;
    this.keepReconciling = keep;
    return this;
  }

  /**
   * A tracer: each add of a key to the default queue carries a context to the reconcile that
   * covers it, and each reconcile is bracketed on its worker's thread (see {@link
   * ReconcileTracer}; the {@code workqueue-tracing-opentelemetry} module has one). Default: none,
   * and an untraced controller and queue pay nothing for it. With a queue of your own
   * ({@link #queue}) the reconciles are bracketed without their adds.
   *
   * @param tracer called on each add, hand-out and reconcile
   * @return this builder
   * @throws NullPointerException if {@code tracer} is null
   */
  public ControllerBuilder<T> tracer(ReconcileTracer<? super T> tracer) {
    this.tracing = new ReconcileTracing<>(Checks.nonNull(tracer, "tracer"));
    return this;
  }

  /**
   * Whether {@link Controller#stop} works off the keys already queued before the workers
   * exit. Default false: running reconciles finish, queued keys are dropped.
   *
   * @param drain true to reconcile the queued keys before the workers exit, within the stop
   *     timeout
   * @return this builder
   */
  public ControllerBuilder<T> drainOnStop(boolean drain) {
    this.drainOnStop = drain;
    return this;
  }

  /**
   * The timeout of {@link Controller#close}. Default 30 s.
   *
   * @param timeout what {@code close} passes to {@link Controller#stop}; not negative
   * @return this builder
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  public ControllerBuilder<T> stopTimeout(Duration timeout) {
    this.stopTimeout = Checks.nonNegative(timeout, "timeout");
    return this;
  }

  /**
   * The controller, stopped; {@link Controller#start} starts it. Its queue is made now, so
   * keys added before the start wait in it.
   *
   * @return a new controller with these settings
   * @throws IllegalStateException if no reconciler was set; if both a queue factory and a
   *     rate limiter, queue metrics provider or {@link #priorityQueue} (which only the default
   *     queue uses); or if both a thread factory and an executor
   */
  public Controller<T> build() {
    if (reconciler == null) {
      throw new IllegalStateException("reconciler(...) is required");
    }
    if (queueFactory != null
        && (rateLimiter != null || queueMetrics != MetricsProvider.noop() || priorityQueue)) {
      throw new IllegalStateException("rateLimiter(...), queueMetricsProvider(...) and"
          + " priorityQueue(...) configure the default queue; with queue(...) configure the"
          + " queue there");
    }
    if (threadFactory != null && executor != null) {
      throw new IllegalStateException("set threadFactory(...) or executor(...), not both");
    }
    return new DefaultController<>(this);
  }
}
