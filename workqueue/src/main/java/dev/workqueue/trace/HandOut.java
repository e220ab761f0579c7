package dev.workqueue.trace;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A round of an item as it is handed out: the adds it covers (the first {@link
 * QueueTracer#maxCarried} that carried a context, in the order they took effect) and how long
 * it waited.
 *
 * @param carried the first adds the round covers, oldest first; unmodifiable
 * @param dropped how many more adds with a context it covers, beyond {@code carried}
 * @param readyWait from the moment the round became ready (its first add, or the end of the
 *     previous round if it was added meanwhile, or its delay's end) to the hand-out, on the
 *     queue's clock: the wait in line, without the back-off
 */
public record HandOut(List<CarriedAdd> carried, int dropped, Duration readyWait) {
  /**
   * Checks and copies the arguments.
   *
   * @param carried the first adds the round covers, oldest first
   * @param dropped how many more adds it covers
   * @param readyWait from the round becoming ready to its hand-out
   * @throws NullPointerException if {@code carried} or {@code readyWait} is null
   * @throws IllegalArgumentException if {@code dropped} is negative
   */
  public HandOut {
    carried = List.copyOf(carried);
    Objects.requireNonNull(readyWait, "readyWait must not be null");
    if (dropped < 0) {
      throw new IllegalArgumentException("dropped must not be negative: " + dropped);
    }
  }

  /**
   * All the adds with a context this round covers.
   *
   * @return {@code carried().size() + dropped()}
   */
  public int adds() {
    return carried.size() + dropped;
  }
}
