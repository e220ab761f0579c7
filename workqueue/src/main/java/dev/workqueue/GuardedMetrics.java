package dev.workqueue;

/**
 * A named queue's {@link QueueMetrics}: the live metrics and, for a priority queue, the depth by
 * priority, each call ending in the queue's {@link HookGuard}, so that it never throws and a
 * hook that throws in one series leaves the other series right.
 */
final class GuardedMetrics<T> implements QueueMetrics<T> {
  private final QueueMetrics<T> inner;
  private final PriorityDepthMetric byPriority; // null: not a priority queue
  private final HookGuard guard;

  GuardedMetrics(QueueMetrics<T> inner, PriorityDepthMetric byPriority, HookGuard guard) {
    this.inner = inner;
    this.byPriority = byPriority;
    this.guard = guard;
  }

  @Override
  public void added(T item, int depth, int priority) {
    try {
      inner.added(item, depth, priority);
    } catch (Throwable t) {
      guard.failed("a metrics hook (added)", t);
    }
    if (byPriority != null) {
      try {
        byPriority.increment(priority);
      } catch (Throwable t) {
        guard.failed("a metrics hook (depth by priority)", t);
      }
    }
  }

  @Override
  public void taken(T item, int depth, int priority) {
    try {
      inner.taken(item, depth, priority);
    } catch (Throwable t) {
      guard.failed("a metrics hook (taken)", t);
    }
    if (byPriority != null) {
      try {
        byPriority.decrement(priority);
      } catch (Throwable t) {
        guard.failed("a metrics hook (depth by priority)", t);
      }
    }
  }

  @Override
  public void raised(int from, int to) {
    if (byPriority != null) {
      try {
        byPriority.move(from, to);
      } catch (Throwable t) {
        guard.failed("a metrics hook (depth by priority)", t);
      }
    }
  }

  @Override
  public void finished(T item) {
    try {
      inner.finished(item);
    } catch (Throwable t) {
      guard.failed("a metrics hook (finished)", t);
    }
  }

  @Override
  public void retried() {
    try {
      inner.retried();
    } catch (Throwable t) {
      guard.failed("a metrics hook (retried)", t);
    }
  }

  @Override
  public void stopped() {
    try {
      inner.stopped();
    } catch (Throwable t) {
      guard.failed("a metrics hook (stopped)", t);
    }
  }
}
