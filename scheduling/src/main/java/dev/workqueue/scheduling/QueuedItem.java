package dev.workqueue.scheduling;

/**
 * A read-only view of an item and its queueing state, as comparators and callers see it.
 * Times are readings of the queue's clock (compare them by difference).
 *
 * @param <K> the key type
 * @param <T> the item type
 */
public interface QueuedItem<K, T> {
  /** The item (the latest version given to {@code add} or {@code update}). */
  T item();

  /** The item's key. */
  K key();

  /** When the item was added or last failed: the FIFO key of the default order. */
  long timestamp();

  /** How often the item was popped. */
  int attempts();

  /** Failures with at least one rejector. */
  int unschedulableCount();

  /** Failures without a rejector since the last rejection. */
  int consecutiveErrors();

  /**
   * A number that orders items with equal timestamps by arrival; refreshed with the
   * timestamp. The default comparator uses it as the last tie-breaker.
   */
  long sequence();
}
