package dev.workqueue;

/**
 * What a priority queue knows about one item: whether it is processing, and where its pending
 * add is. One entry per item the queue holds in any way; guarded by the queue's lock, except
 * {@link #readyPriority}, which the add fast path reads without it.
 *
 * <pre>
 *   pending   where                         dirty (depth)
 *   NONE      nowhere (processing only)     no
 *   WAITING   the delay heap                no
 *   READY     its priority's line           yes
 *   HELD      nowhere yet: it is processing yes   (goes to its line at done)
 * </pre>
 *
 * An entry with pending NONE that is not processing is removed from the queue's map.
 */
final class PriorityEntry<T> {
  static final byte NONE = 0;
  static final byte WAITING = 1;
  static final byte READY = 2;
  static final byte HELD = 3;

  /** {@link #readyPriority} of an entry that is not READY or HELD. */
  static final long NOT_READY = Long.MIN_VALUE;

  final T item;
  /** The pending add's priority; while only processing, the priority it was handed out at. */
  int priority;
  byte pending;
  boolean processing;
  /** Set when the entry leaves the queue's map; a fresh entry stands for the item after. */
  boolean removed;
  /**
   * {@link #priority} while the pending add is READY or HELD, else {@link #NOT_READY}: an add
   * without delay at this priority or lower changes nothing then, and needs no lock. Written
   * under the lock by {@link #publish}.
   */
  volatile long readyPriority = NOT_READY;
  /** When the item became ready, on the queue's clock; kept only while aging is on. */
  long readySince;

  // Links of ReadyLevels: the line of the item's priority, and the line of all by age.
  ReadyLevels.Level<T> level;
  PriorityEntry<T> prev;
  PriorityEntry<T> next;
  PriorityEntry<T> older;
  PriorityEntry<T> newer;

  PriorityEntry(T item, int priority) {
    this.item = item;
    this.priority = priority;
  }

  boolean isDirty() {
    return pending == READY || pending == HELD;
  }

  /** Makes {@link #readyPriority} agree with {@link #pending} and {@link #priority}. */
  void publish() {
    long p = isDirty() ? priority : NOT_READY;
    if (readyPriority != p) {
      readyPriority = p;
    }
  }

  @Override
  public String toString() {
    return item + "@" + priority;
  }
}
