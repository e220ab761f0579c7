package dev.workqueue;

import java.time.Duration;

/**
 * A {@link WorkQueue} that can also add an item after a delay: client-go's
 * {@code TypedDelayingInterface}.
 *
 * <p>Delayed items wait outside the queue, in a heap ordered by ready time; they are not
 * dirty, not counted by {@link #size()} (see {@link #waitingCount()}) and not visible to
 * {@code get}. When their time comes they are added, all due items in one batch in ready-time
 * order, as if by {@link #add}: an item that is already dirty is not added twice.
 *
 * <p>An item added after a delay while it already waits keeps the <em>earlier</em> ready
 * time (client-go's rule); {@link #reschedule} moves it either way, {@link #cancel} removes
 * it. Any number of items may wait: nothing is dropped and {@code addAfter} never blocks.
 *
 * <p>No thread per queue, and for a queue without metrics no timer either: a consumer waiting
 * in {@code get} or {@code poll} waits only until the earliest ready time (one consumer at a
 * time does, as in {@link java.util.concurrent.DelayQueue}), and every operation sees what is
 * due as queued, as if each due item had been added at its ready time (takes hand out, in the
 * order items became ready, whatever is queued or due). No operation moves more than a few
 * dozen due items under one hold of the lock: when a million fall due together, the first is
 * handed out at once and an {@code add} on another thread never waits for the rest. A named queue with metrics also arms one wake-up on
 * its {@link dev.workqueue.clock.Clock} (the shared timer pool for the system clock) for the
 * earliest ready time while items wait and no consumer does, so that its depth and adds
 * metrics move on time. {@link #shutDown} queues what is due, discards the items still
 * waiting and cancels the wake-up.
 *
 * @param <T> the item type
 */
public interface DelayingQueue<T> extends WorkQueue<T> {

  /**
   * A delaying queue with the default settings: FIFO, the system clock, no metrics.
   *
   * @param <T> the item type
   * @return a new, empty delaying queue
   */
  static <T> DelayingQueue<T> create() {
    return new WorkQueueBuilder<T>().buildDelaying();
  }

  /**
   * Adds {@code item} once {@code delay} has passed on the queue's clock; a delay of zero or
   * less adds it now. If the item already waits, the earlier of the two ready times is kept.
   * Ignored after shutdown. Counts one retry in the metrics ({@code workqueue_retries_total}).
   * Delays beyond about 146 years are clamped.
   *
   * @param item the item to add, compared with {@code equals}/{@code hashCode}
   * @param delay how long from now until the item is added; zero or negative adds it now
   * @throws NullPointerException if {@code item} or {@code delay} is null
   */
  void addAfter(T item, Duration delay);

  /**
   * Like {@link #addAfter}, but sets the ready time even if that postpones a waiting item
   * (client-go#131). A delay of zero or less removes the item from the waiting room and adds
   * it now. Ignored after shutdown; counts one retry.
   *
   * @param item the item to add, or whose ready time to move if it waits
   * @param delay how long from now until the item is added; replaces any earlier or later
   *     ready time of a waiting item
   * @throws NullPointerException if {@code item} or {@code delay} is null
   */
  void reschedule(T item, Duration delay);

  /**
   * Removes {@code item} from the waiting room, if it waits there. Does not touch the item if
   * it is queued or processing.
   *
   * @param item the item whose delayed add to drop
   * @return whether the item was waiting
   * @throws NullPointerException if {@code item} is null
   */
  boolean cancel(T item);

  /**
   * The number of items waiting for their delay to pass. Informational.
   *
   * @return how many items wait now, not counting those whose delay has passed (they count
   *     as queued); 0 after shutdown
   */
  int waitingCount();
}
