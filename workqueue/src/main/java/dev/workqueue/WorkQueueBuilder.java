package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.trace.QueueTracer;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;

/**
 * Builds work queues. Every setter checks its argument when called and returns this builder;
 * unset settings take the defaults listed on each setter.
 *
 * <pre>{@code
 * WorkQueue<String> queue = WorkQueue.<String>builder()
 *     .name("pods")                       // metrics are recorded for named queues only
 *     .metricsProvider(myProvider)
 *     .build();
 * }</pre>
 *
 * <p>Not thread-safe; a builder may build several queues, each independent.
 *
 * @param <T> the item type
 */
public final class WorkQueueBuilder<T> {
  static final Duration DEFAULT_METRICS_UPDATE_PERIOD = Duration.ofMillis(500);
  /** The default aging threshold of priority queues. */
  public static final Duration DEFAULT_AGING_THRESHOLD = Duration.ofMinutes(5);

  String name;
  Clock clock = Clock.system();
  MetricsProvider metricsProvider = MetricsProvider.noop();
  Function<? super T, ?> fairDimension;
  long metricsUpdatePeriodNanos = DEFAULT_METRICS_UPDATE_PERIOD.toNanos();
  boolean addSupersedesDelayed;
  boolean startCrowded;
  long agingThresholdNanos = DEFAULT_AGING_THRESHOLD.toNanos(); // 0 = off
  QueueTracer<? super T> tracer;
  private boolean clockSet;
  private ScheduledExecutorService scheduler;

  WorkQueueBuilder() {}

  /**
   * For tests: the queue starts as if several threads took from it, so that a new item joins
   * the line under the lock from the first add ({@code CrowdWindow}).
   */
  WorkQueueBuilder<T> startCrowdedForTests() {
    this.startCrowded = true;
    return this;
  }

  /**
   * The queue's name, under which its metrics are recorded. Default: none, and an unnamed
   * queue records no metrics. The empty name means none, as in client-go.
   *
   * @param name the queue's name, the {@code name} label of its metrics; empty for none
   * @return this builder
   * @throws NullPointerException if {@code name} is null
   */
  public WorkQueueBuilder<T> name(String name) {
    Checks.nonNull(name, "name");
    this.name = name.isEmpty() ? null : name;
    return this;
  }

  /**
   * The time source. Default: {@link Clock#system()}; tests pass a {@code FakeClock}.
   *
   * @param clock the clock of delays, timeouts, aging and metrics
   * @return this builder
   * @throws NullPointerException if {@code clock} is null
   */
  public WorkQueueBuilder<T> clock(Clock clock) {
    this.clock = Checks.nonNull(clock, "clock");
    this.clockSet = true;
    return this;
  }

  /**
   * Runs this queue's wake-ups (delayed items, metrics refresh) on {@code scheduler} instead of
   * the shared timer pool; the caller owns it and shuts it down after the queue. Only with the
   * system clock: a custom {@link Clock} schedules its own wake-ups.
   *
   * @param scheduler the executor of the wake-ups; the build methods throw
   *     {@link IllegalStateException} if {@link #clock} was set too
   * @return this builder
   * @throws NullPointerException if {@code scheduler} is null
   */
  public WorkQueueBuilder<T> scheduler(ScheduledExecutorService scheduler) {
    this.scheduler = Checks.nonNull(scheduler, "scheduler");
    return this;
  }

  /**
   * Delaying queues only: whether {@link WorkQueue#add} of an item that waits for a delay
   * removes it from the waiting room, so it is processed now and not again when the delay
   * ends (kubernetes#110642; controller-runtime's queue behaves this way). Default false, as
   * in client-go: the item is processed now <em>and</em> again when its delay ends.
   *
   * @param supersedes true to drop a waiting delayed add of an item added now
   * @return this builder
   */
  public WorkQueueBuilder<T> addSupersedesDelayed(boolean supersedes) {
    this.addSupersedesDelayed = supersedes;
    return this;
  }

  /**
   * Priority queues only: an item that has been ready for {@code threshold} is served ahead of
   * every priority (oldest first), so no item starves under steady higher-priority load.
   * Default: on, 5 minutes ({@link #DEFAULT_AGING_THRESHOLD}); see {@link PriorityWorkQueue}
   * for why. Delays beyond about 146 years are clamped.
   *
   * @param threshold how long an item may be ready before it is served ahead of priorities;
   *     positive
   * @return this builder
   * @throws NullPointerException if {@code threshold} is null
   * @throws IllegalArgumentException if {@code threshold} is not positive
   */
  public WorkQueueBuilder<T> agingThreshold(Duration threshold) {
    Checks.nonNull(threshold, "threshold");
    if (threshold.isNegative() || threshold.isZero()) {
      throw new IllegalArgumentException("threshold must be positive, was " + threshold);
    }
    this.agingThresholdNanos = TimeMath.delayNanos(threshold);
    return this;
  }

  /**
   * Priority queues only: no aging, strict priority order as in controller-runtime: an item
   * waits as long as higher-priority items keep coming.
   *
   * @return this builder
   */
  public WorkQueueBuilder<T> disableAging() {
    this.agingThresholdNanos = 0;
    return this;
  }

  /**
   * Where a named queue's metrics go. Default: {@link MetricsProvider#noop()}.
   *
   * @param provider creates the queue's metrics at build time; used only if {@link #name} is
   *     set
   * @return this builder
   * @throws NullPointerException if {@code provider} is null
   */
  public WorkQueueBuilder<T> metricsProvider(MetricsProvider provider) {
    this.metricsProvider = Checks.nonNull(provider, "provider");
    return this;
  }

  /**
   * Makes the ready order <em>fair</em> across the values of {@code dimension}: ready items are
   * handed out round-robin between the values (a namespace, a tenant), first-in first-out within
   * one value, so a value with 10,000 ready items gets one turn per round like a value with 3
   * and cannot starve it. Default: one first-in first-out order (client-go's).
   *
   * <p>{@code dimension} is called with each item when it is added (also by {@code addAfter},
   * so that a dimension that throws fails that call), must not return null, and must give the
   * same value for equal items. Its values are compared with {@code equals}/{@code hashCode}.
   * Not for priority queues, which order by priority.
   *
   * <pre>{@code
   * RateLimitingQueue<ObjectKey> queue = WorkQueue.<ObjectKey>builder()
   *     .fairBy(ObjectKey::namespace)
   *     .buildRateLimiting(RateLimiters.defaultControllerRateLimiter());
   * }</pre>
   *
   * @param dimension maps an item to the value it is fair across, such as its namespace
   * @return this builder
   * @throws NullPointerException if {@code dimension} is null
   */
  public WorkQueueBuilder<T> fairBy(Function<? super T, ?> dimension) {
    this.fairDimension = Checks.nonNull(dimension, "dimension");
    return this;
  }

  /**
   * How often the unfinished-work and longest-running gauges are refreshed while something is
   * processing. Default: 500 ms, as client-go.
   *
   * @param period the time between two refreshes; positive
   * @return this builder
   * @throws NullPointerException if {@code period} is null
   * @throws IllegalArgumentException if {@code period} is not positive
   */
  public WorkQueueBuilder<T> metricsUpdatePeriod(Duration period) {
    Checks.nonNull(period, "period");
    if (period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException("period must be positive, was " + period);
    }
    this.metricsUpdatePeriodNanos = TimeMath.delayNanos(period);
    return this;
  }

  /**
   * A tracer that carries a context from each add of an item to the take that hands out the
   * round covering it (see {@link QueueTracer} for which adds a round covers). Default: none, and
   * a queue without a tracer pays nothing for this. With one, every add takes the queue's lock
   * (instead of merging into a pending round, or adding a new item, without it).
   *
   * @param tracer called on each add and each hand-out
   * @return this builder
   * @throws NullPointerException if {@code tracer} is null
   */
  public WorkQueueBuilder<T> tracer(QueueTracer<? super T> tracer) {
    this.tracer = Checks.nonNull(tracer, "tracer");
    return this;
  }

  /**
   * A basic work queue with these settings.
   *
   * @return a new, empty queue
   * @throws IllegalStateException if both {@link #scheduler} and {@link #clock} were set
   */
  public WorkQueue<T> build() {
    resolveClock();
    return new DefaultWorkQueue<>(this);
  }

  /**
   * A delaying queue with these settings.
   *
   * @return a new, empty delaying queue
   * @throws IllegalStateException if both {@link #scheduler} and {@link #clock} were set
   */
  public DelayingQueue<T> buildDelaying() {
    resolveClock();
    return new DefaultDelayingQueue<>(this);
  }

  /**
   * A rate-limiting queue with these settings, asking {@code limiter} for each retry's delay.
   *
   * @param limiter gives each retry's delay; a limiter shared by two queues shares its counts
   * @return a new, empty rate-limiting queue
   * @throws NullPointerException if {@code limiter} is null
   * @throws IllegalStateException if both {@link #scheduler} and {@link #clock} were set
   */
  public RateLimitingQueue<T> buildRateLimiting(RateLimiter<? super T> limiter) {
    Checks.nonNull(limiter, "limiter");
    resolveClock();
    return new DefaultRateLimitingQueue<>(this, limiter);
  }

  /**
   * A priority queue with these settings, asking {@code limiter} for the delay of rate-limited
   * adds. {@link #addSupersedesDelayed} is always on for it (controller-runtime's rule: an add
   * without delay makes a waiting item ready now).
   *
   * @param limiter gives the delay of rate-limited adds; a limiter shared by two queues shares
   *     its counts
   * @return a new, empty priority queue
   * @throws NullPointerException if {@code limiter} is null
   * @throws IllegalStateException if {@link #fairBy} was set: a priority queue orders by
   *     priority; or if both {@link #scheduler} and {@link #clock} were set
   */
  public PriorityWorkQueue<T> buildPriority(RateLimiter<? super T> limiter) {
    Checks.nonNull(limiter, "limiter");
    if (fairDimension != null) {
      throw new IllegalStateException(
          "fairBy(...) does not apply to a priority queue, which orders items by priority");
    }
    resolveClock();
    return new DefaultPriorityWorkQueue<>(this, limiter);
  }

  private void resolveClock() {
    if (scheduler != null) {
      if (clockSet) {
        throw new IllegalStateException(
            "scheduler(...) applies to the system clock; a custom clock schedules its own"
                + " wake-ups: set one or the other");
      }
      clock = Clock.system(scheduler);
    }
  }

  QueueMetrics<T> newMetrics(java.util.concurrent.locks.Lock queueLock) {
    if (name == null || metricsProvider == MetricsProvider.noop()) {
      return QueueMetrics.noop();
    }
    return new LiveQueueMetrics<>(
        name, metricsProvider, clock, metricsUpdatePeriodNanos, queueLock);
  }

  /** The depth-by-priority gauges of a named priority queue, or null when none are recorded. */
  PriorityDepthMetric newPriorityDepthMetric() {
    if (name == null || metricsProvider == MetricsProvider.noop()) {
      return null;
    }
    return new PriorityDepthMetric(metricsProvider, name);
  }
}
