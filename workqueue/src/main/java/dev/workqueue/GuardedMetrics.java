package dev.workqueue;

/** {@link QueueMetrics} whose every call ends in the queue's {@link HookGuard}: it never throws. */
final class GuardedMetrics<T> implements QueueMetrics<T> {
  private final QueueMetrics<T> inner;
  private final HookGuard guard;

  GuardedMetrics(QueueMetrics<T> inner, HookGuard guard) {
    this.inner = inner;
    this.guard = guard;
  }

  @Override
  public void added(T item, int depth) {
    try {
      inner.added(item, depth);
    } catch (Throwable t) {
      guard.failed("a metrics hook (added)", t);
    }
  }

  @Override
  public void taken(T item, int depth) {
    try {
      inner.taken(item, depth);
    } catch (Throwable t) {
      guard.failed("a metrics hook (taken)", t);
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
