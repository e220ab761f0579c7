package dev.workqueue;

/**
 * An {@link Entry} of a priority queue: the links of its priority's line and of the age line
 * ({@link PriorityLines}); the line is the one of its priority, so it keeps no link to it.
 */
final class PriorityEntry<T> extends Entry<T> {
  PriorityEntry<T> prev;
  PriorityEntry<T> next;
  PriorityEntry<T> older;
  PriorityEntry<T> newer;

  PriorityEntry(T item, int priority) {
    super(item, priority);
  }
}
