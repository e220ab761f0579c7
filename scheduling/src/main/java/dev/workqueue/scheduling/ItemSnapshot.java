package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * An item and its queueing state, copied at one moment: what {@link SchedulingQueue#lookup},
 * {@link SchedulingQueue#inFlight} and {@link SchedulingQueue#activeItems} return. Unlike the
 * live {@link QueuedItem} a comparator sees, a snapshot never changes; the queue may have
 * moved the item on by the time the caller reads it. Times are readings of the queue's
 * clock, in nanoseconds (compare them by difference).
 *
 * @param item the item, the latest version given to {@code add} or {@code update}
 * @param key its key
 * @param timestamp when it was added or last failed (an update does not change it)
 * @param sequence orders items with equal timestamps by arrival; refreshed with the timestamp
 * @param attempts pops of the item so far, the one in flight included
 * @param unschedulableCount failures with at least one rejector
 * @param consecutiveErrors failures without a rejector since the last rejection
 * @param lastRejectors what said no at the item's last failure: {@link Rejectors#none()} before
 *     the first failure and after an error
 * @param <K> the key type
 * @param <T> the item type
 */
public record ItemSnapshot<K, T>(T item, K key, long timestamp, long sequence, int attempts,
    int unschedulableCount, int consecutiveErrors, Rejectors lastRejectors)
    implements QueuedItem<K, T> {

  /**
   * A snapshot, made by the queue.
   *
   * @param item the item, not null
   * @param key its key, not null
   * @param timestamp when it was added or last failed, a clock reading
   * @param sequence its arrival number
   * @param attempts its pops so far, not negative
   * @param unschedulableCount its rejections so far, not negative
   * @param consecutiveErrors its errors in a row, not negative
   * @param lastRejectors what said no at its last failure, not null
   * @throws NullPointerException if {@code item}, {@code key} or {@code lastRejectors} is null
   * @throws IllegalArgumentException if a count is negative
   */
  public ItemSnapshot {
    Checks.nonNull(item, "item");
    Checks.nonNull(key, "key");
    Checks.nonNull(lastRejectors, "lastRejectors");
    Checks.nonNegative(attempts, "attempts");
    Checks.nonNegative(unschedulableCount, "unschedulableCount");
    Checks.nonNegative(consecutiveErrors, "consecutiveErrors");
  }
}
