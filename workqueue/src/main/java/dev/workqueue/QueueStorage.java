package dev.workqueue;

/**
 * Where a {@link WorkQueue} keeps its queued items: client-go's {@code Queue} interface. The
 * default is a FIFO ({@link #fifo()}); a custom storage can order items otherwise (by
 * priority, say) and use {@link #touch} to react to a re-add of an item it holds.
 *
 * <p>The queue calls every method while holding its lock, so an implementation need not be
 * thread-safe, must be fast, and must never call back into the queue. The queue guarantees
 * that an item is pushed only if it is not already held, and that {@code pop} is called only
 * when {@code size() > 0}. A storage instance belongs to one queue.
 *
 * @param <T> the item type
 */
public interface QueueStorage<T> {

  /** Called when an item already held is added again: a hook for priority storages. */
  void touch(T item);

  /** Adds an item that is not held. */
  void push(T item);

  /** Removes and returns the next item; only called when {@code size() > 0}. */
  T pop();

  /** The number of items held. */
  int size();

  /**
   * A first-in first-out storage that drops its reference to an item when it is popped, so a
   * popped item is garbage-collectable once the caller lets go of it.
   */
  static <T> QueueStorage<T> fifo() {
    return new FifoStorage<>();
  }
}
