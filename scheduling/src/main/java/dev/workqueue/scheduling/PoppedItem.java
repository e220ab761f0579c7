package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * An item handed out by {@link SchedulingQueue#pop}, with the id of this attempt. Pass it
 * back to {@link SchedulingQueue#requeueFailed} on failure, or its {@link #id} to
 * {@link SchedulingQueue#done} on success.
 *
 * @param item the item as it was when popped
 * @param key its key
 * @param id this attempt's id: the scheduling cycle of the pop, unique within the queue
 * @param attempts the item's attempts, this one included
 * @param lastRejectors what said no at the item's previous failure: {@link Rejectors#none()}
 *     for a first attempt and after an error. A scheduler may try those first, as the most
 *     likely to say no again
 * @param <K> the key type
 * @param <T> the item type
 */
public record PoppedItem<K, T>(T item, K key, long id, int attempts, Rejectors lastRejectors) {
  /**
   * A handle, made by {@link SchedulingQueue#pop}; the queue identifies the attempt by
   * {@code id} alone.
   *
   * @param item the item as it was when popped, not null
   * @param key its key, not null
   * @param id the attempt's id, the scheduling cycle of the pop
   * @param attempts the item's attempts, this one included
   * @param lastRejectors what said no at the item's previous failure, not null
   * @throws NullPointerException if {@code item}, {@code key} or {@code lastRejectors} is null
   */
  public PoppedItem {
    Checks.nonNull(item, "item");
    Checks.nonNull(key, "key");
    Checks.nonNull(lastRejectors, "lastRejectors");
  }

  /**
   * A handle without rejectors, as for a first attempt.
   *
   * @param item the item as it was when popped, not null
   * @param key its key, not null
   * @param id the attempt's id, the scheduling cycle of the pop
   * @param attempts the item's attempts, this one included
   * @throws NullPointerException if {@code item} or {@code key} is null
   */
  public PoppedItem(T item, K key, long id, int attempts) {
    this(item, key, id, attempts, Rejectors.none());
  }
}
