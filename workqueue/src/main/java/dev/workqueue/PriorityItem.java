package dev.workqueue;

import dev.workqueue.internal.Checks;

/**
 * An item handed out by {@link PriorityWorkQueue#getWithPriority}, with the priority it was
 * queued at: controller-runtime's {@code GetWithPriority} result. A reconcile loop passes the
 * priority back when it requeues the item, so a retry keeps its place in line.
 *
 * @param item the item; pass it to {@link WorkQueue#done}
 * @param priority its priority when it was handed out (higher is served first)
 * @param <T> the item type
 */
public record PriorityItem<T>(T item, int priority) {

  /**
   * An item with its priority.
   *
   * @param item the item; never null
   * @param priority the priority it was handed out at; any {@code int}
   * @throws NullPointerException if {@code item} is null
   */
  public PriorityItem {
    Checks.item(item);
  }
}
