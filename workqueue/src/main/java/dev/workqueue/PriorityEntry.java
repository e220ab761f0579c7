package dev.workqueue;

/**
 * An {@link Entry} of a priority queue: the links of its priority's line and of the age line
 * ({@link PriorityLines}), and when it became ready.
 */
final class PriorityEntry<T> extends Entry<T> {
  PriorityLines.Level<T> level;
  PriorityEntry<T> prev;
  PriorityEntry<T> next;
  PriorityEntry<T> older;
  PriorityEntry<T> newer;

  PriorityEntry(T item, int priority) {
    super(item, priority);
  }
}
