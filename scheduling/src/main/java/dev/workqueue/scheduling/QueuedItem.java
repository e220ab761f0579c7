package dev.workqueue.scheduling;

/**
 * A read-only view of an item and its queueing state, as comparators and callers see it.
 * Times are readings of the queue's clock (compare them by difference).
 *
 * @param <K> the key type
 * @param <T> the item type
 */
public interface QueuedItem<K, T> {
  /**
   * The item (the latest version given to {@code add} or {@code update}).
   *
   * @return the current version of the item, never null
   */
  T item();

  /**
   * The item's key.
   *
   * @return the key the builder's key function gave, never null
   */
  K key();

  /**
   * When the item was added or last failed: the FIFO key of the default order.
   *
   * @return a reading of the queue's clock in nanoseconds; an update does not change it
   */
  long timestamp();

  /**
   * How often the item was popped.
   *
   * @return the number of pops of the item so far, 0 before the first; saturates at
   *     {@link Integer#MAX_VALUE}
   */
  int attempts();

  /**
   * Failures with at least one rejector.
   *
   * @return the number of rejections so far, which drives the back-off while the item has no
   *     consecutive errors; saturates at {@link Integer#MAX_VALUE}
   */
  int unschedulableCount();

  /**
   * Failures without a rejector since the last rejection.
   *
   * @return the number of errors in a row, reset to 0 by a rejection; when positive it drives
   *     the back-off instead of {@link #unschedulableCount}
   */
  int consecutiveErrors();

  /**
   * A number that orders items with equal timestamps by arrival; refreshed with the
   * timestamp. The default comparator uses it as the last tie-breaker.
   *
   * @return a number unique within the queue, larger for later arrivals and failures
   */
  long sequence();
}
