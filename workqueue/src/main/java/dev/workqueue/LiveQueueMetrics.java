package dev.workqueue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * The seven metrics of a named queue. All state is guarded by the queue's lock: the hooks run
 * under it and the periodic refresh takes it.
 *
 * <p>The unfinished-work and longest-running gauges are refreshed every period while
 * something is processing: the refresh is armed when the first item starts processing and
 * disarms itself (after setting both gauges to 0) once nothing is, so an idle queue has
 * nothing scheduled. After a shutdown the refresh stops (as client-go's), and the done that
 * leaves nothing processing sets both gauges to 0.
 */
final class LiveQueueMetrics<T> implements QueueMetrics<T> {
  private final Clock clock;
  private final Lock queueLock;
  private final long periodNanos;

  private final Gauge depth;
  private final Counter adds;
  private final Histogram queueDuration;
  private final Histogram workDuration;
  private final Gauge unfinishedWork;
  private final Gauge longestRunning;
  private final Counter retries;

  private final Map<T, Long> addTimes = new HashMap<>();
  private final Map<T, Long> startTimes = new HashMap<>();
  private Cancellable refresh;
  private boolean stopped;

  LiveQueueMetrics(String name, MetricsProvider p, Clock clock, long periodNanos, Lock queueLock) {
    this.clock = clock;
    this.queueLock = queueLock;
    this.periodNanos = periodNanos;
    this.depth = p.newDepthMetric(name);
    this.adds = p.newAddsMetric(name);
    this.queueDuration = p.newLatencyMetric(name);
    this.workDuration = p.newWorkDurationMetric(name);
    this.unfinishedWork = p.newUnfinishedWorkSecondsMetric(name);
    this.longestRunning = p.newLongestRunningProcessorSecondsMetric(name);
    this.retries = p.newRetriesMetric(name);
  }

  @Override
  public void added(T item, int dirty, int priority) {
    adds.inc();
    depth.set(dirty);
    addTimes.putIfAbsent(item, clock.nanoTime());
  }

  @Override
  public void raised(int from, int to) {} // the depth by priority: GuardedMetrics

  @Override
  public void taken(T item, int dirty, int priority) {
    depth.set(dirty);
    long now = clock.nanoTime();
    Long addedAt = addTimes.remove(item);
    if (addedAt != null) {
      queueDuration.observe(TimeMath.toSeconds(now - addedAt));
    }
    startTimes.put(item, now);
    if (refresh == null && !stopped) {
      refresh = clock.schedule(now + periodNanos, this::refresh);
    }
  }

  @Override
  public void finished(T item) {
    Long startedAt = startTimes.remove(item);
    if (startedAt != null) {
      workDuration.observe(TimeMath.toSeconds(clock.nanoTime() - startedAt));
    }
    if (stopped && startTimes.isEmpty()) {
      idle(); // no refresh after a shutdown: the last done reports that nothing runs
    }
  }

  private void idle() {
    unfinishedWork.set(0);
    longestRunning.set(0);
  }

  @Override
  public void retried() {
    retries.inc();
  }

  @Override
  public void stopped() {
    stopped = true;
    if (refresh != null) {
      refresh.cancel();
      refresh = null;
    }
    if (startTimes.isEmpty()) {
      idle();
    }
  }

  private void refresh() {
    queueLock.lock();
    try {
      if (stopped) {
        return;
      }
      long now = clock.nanoTime();
      long sum = 0;
      long oldest = 0;
      for (long startedAt : startTimes.values()) {
        long age = now - startedAt;
        sum += age;
        oldest = Math.max(oldest, age);
      }
      unfinishedWork.set(TimeMath.toSeconds(sum));
      longestRunning.set(TimeMath.toSeconds(oldest));
      refresh = startTimes.isEmpty() ? null : clock.schedule(now + periodNanos, this::refresh);
    } finally {
      queueLock.unlock();
    }
  }
}
