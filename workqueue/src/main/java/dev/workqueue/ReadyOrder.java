package dev.workqueue;

/**
 * The order in which a queue hands out its ready items: the one part of the engine that differs
 * between queue kinds. Not thread-safe: the queue's lock guards it, and it must never call back
 * into the queue.
 *
 * <ul>
 *   <li>{@link FifoOrder}: first in, first out (client-go);
 *   <li>{@link PriorityOrder}: highest priority first, FIFO within a priority, with aging
 *       (controller-runtime's priority queue);
 *   <li>{@link FairOrder}: round-robin across the values of a dimension of the item (a
 *       namespace, a tenant), FIFO within one value.
 * </ul>
 *
 * The queue creates each item's {@link Entry} through {@link #newEntry}, so an order links
 * the kind of entry it needs; it calls {@link #newEntry} before it changes any state, so an
 * order may run the caller's code there (the fair order's dimension) and a throw harms nothing.
 */
abstract class ReadyOrder<T> {

  /** A fresh entry for {@code item}, not yet in line. May throw: nothing has changed yet. */
  abstract Entry<T> newEntry(T item, int priority);

  /**
   * Puts {@code e}, which just became READY, in line. {@code readySince} is when it became
   * ready, on the queue's clock (only read if {@link #readsClock}).
   */
  abstract void append(Entry<T> e, long readySince);

  /**
   * Puts {@code e} in line as ready since {@code readyAt}, when a delayed add of it fell due:
   * it counts as added then, perhaps before entries that joined since. Orders that rank by
   * time already ({@link PriorityOrder}'s aging) or not at all ({@link FairOrder}'s turns) just
   * {@link #append} it.
   */
  void appendDue(Entry<T> e, long readyAt) {
    append(e, readyAt);
  }

  /** Removes and returns the entry to hand out next, or null if none is ready. */
  abstract Entry<T> poll(long now);

  /** A READY entry's priority rises to {@code priority}; only priority orders see this. */
  void raise(Entry<T> e, int priority) {
    e.priority = priority;
  }

  /** The entry left the queue's map for good: an order may drop what it kept for it. */
  void released(Entry<T> e) {}

  /** The number of entries in line. */
  abstract int size();

  /** Whether {@link #append} and {@link #poll} need the clock (aging). */
  boolean readsClock() {
    return false;
  }

  /** For tests: the order's structures agree with each other. */
  boolean checkInvariants() {
    return true;
  }
}
