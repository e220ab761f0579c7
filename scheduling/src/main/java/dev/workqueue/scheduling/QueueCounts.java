package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * How many items each part of a scheduling queue holds, counted at one moment: the answer of
 * {@link SchedulingQueue#counts}. Unlike {@link Pending#summary}, gated items are counted
 * apart from the rejected ones, and items in flight are counted too.
 *
 * @param active items in activeQ
 * @param backoff items in backoffQ (both heaps: rejected and errored)
 * @param unschedulable items in the pool that were rejected
 * @param gated items in the pool that a gate holds
 * @param inFlight items popped and not yet reported back
 */
public record QueueCounts(int active, int backoff, int unschedulable, int gated, int inFlight) {
  /**
   * Counts, made by the queue.
   *
   * @param active items in activeQ, not negative
   * @param backoff items in backoffQ, not negative
   * @param unschedulable rejected items in the pool, not negative
   * @param gated gated items in the pool, not negative
   * @param inFlight items in flight, not negative
   * @throws IllegalArgumentException if a count is negative
   */
  public QueueCounts {
    Checks.nonNegative(active, "active");
    Checks.nonNegative(backoff, "backoff");
    Checks.nonNegative(unschedulable, "unschedulable");
    Checks.nonNegative(gated, "gated");
    Checks.nonNegative(inFlight, "inFlight");
  }

  /**
   * The items waiting: everything but those in flight.
   *
   * @return {@code active + backoff + unschedulable + gated}
   */
  public int waiting() {
    return active + backoff + unschedulable + gated;
  }

  /**
   * The count of one part.
   *
   * @param part the part, not null
   * @return the number of items in it
   * @throws NullPointerException if {@code part} is null
   */
  public int of(ItemStatus.Part part) {
    Checks.nonNull(part, "part");
    return switch (part) {
      case ACTIVE -> active;
      case BACKOFF -> backoff;
      case UNSCHEDULABLE -> unschedulable;
      case GATED -> gated;
      case IN_FLIGHT -> inFlight;
    };
  }
}
