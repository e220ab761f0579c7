package dev.workqueue.trace;

import java.time.Duration;
import java.util.Objects;

/**
 * One add a round covers, as its hand-out reports it.
 *
 * @param context what {@link QueueTracer#onAdd} returned for it; never null
 * @param delay zero for an add without delay, else the delay it asked for (its back-off or rate
 *     limit, or an {@code addAfter}'s delay)
 * @param age from the add to the hand-out, on the queue's clock
 */
public record CarriedAdd(Object context, Duration delay, Duration age) {
  /**
   * Checks the arguments.
   *
   * @param context what {@link QueueTracer#onAdd} returned for the add
   * @param delay the add's delay, zero for none
   * @param age from the add to the hand-out
   * @throws NullPointerException if an argument is null
   */
  public CarriedAdd {
    Objects.requireNonNull(context, "context must not be null");
    Objects.requireNonNull(delay, "delay must not be null");
    Objects.requireNonNull(age, "age must not be null");
  }
}
