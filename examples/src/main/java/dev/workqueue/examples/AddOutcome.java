package dev.workqueue.examples;

import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.MetricsProvider;

/**
 * Tells the caller of an add whether that add queued its key or was merged into the key's
 * pending round: the queue's dedup, seen one add at a time.
 *
 * <p>{@code add} returns nothing, but a queue counts {@code workqueue_adds_total} only for an
 * add that makes its key dirty, and it counts it in the adding thread, during the add (the
 * {@link MetricsProvider} contract: the metrics are called while the queue holds its lock).
 * So this provider's adds counter marks the current thread, and {@link #queued} reads the mark
 * after the add. Give it to the queue beside the real providers (a tee); its other metrics are
 * the interface's no-op defaults.
 *
 * <p>An add also releases a delayed add of the same key that is due (its back-off is over);
 * then the delayed add is the one that queued the key and this add is merged into it, yet
 * {@link #queued} says true: one of the two queued the key, during this call.
 */
final class AddOutcome implements MetricsProvider {
  private final ThreadLocal<boolean[]> counted = ThreadLocal.withInitial(() -> new boolean[1]);

  /**
   * Runs {@code add} (one add to a queue that uses this provider) in this thread.
   *
   * @return true if the add queued the key, false if it was merged into the key's pending round
   *     (the key was queued, or being processed and already queued again)
   */
  boolean queued(Runnable add) {
    boolean[] mark = counted.get();
    mark[0] = false;
    add.run();
    return mark[0];
  }

  @Override
  public Counter newAddsMetric(String name) {
    return () -> counted.get()[0] = true;
  }
}
