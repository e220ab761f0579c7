package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import java.util.List;

/**
 * A snapshot of the items waiting in a scheduling queue.
 *
 * @param items activeQ (head first), then backoffQ (earliest expiry first), then the pool
 *     (in arrival order)
 * @param summary {@code activeQ:N; backoffQ:N; unschedulable:N} (gated items count as
 *     unschedulable)
 * @param <T> the item type
 */
public record Pending<T>(List<T> items, String summary) {
  /**
   * A snapshot; {@code items} is copied.
   *
   * @param items the waiting items in the order described above, no null
   * @param summary the counts per part, not null
   * @throws NullPointerException if an argument or an item is null
   */
  public Pending {
    items = List.copyOf(items);
    Checks.nonNull(summary, "summary");
  }
}
