package dev.workqueue.benchmarks;

import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/** A delayed entry as a {@code DelayQueue} user writes it: the item and its due time. */
final class DelayedItem implements Delayed {
  final Object item;
  final long dueNanos;

  DelayedItem(Object item, long dueNanos) {
    this.item = item;
    this.dueNanos = dueNanos;
  }

  @Override
  public long getDelay(TimeUnit unit) {
    return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
  }

  @Override
  public int compareTo(Delayed other) {
    if (other instanceof DelayedItem) {
      return Long.compare(dueNanos, ((DelayedItem) other).dueNanos);
    }
    return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
  }
}
