package dev.workqueue;

/**
 * controller-runtime's order: highest priority first, first in first out within a priority
 * (the lines of {@link PriorityLines}), with aging: an item ready for longer than the threshold
 * is served ahead of every priority, oldest first, so none starves under steady
 * higher-priority load.
 */
final class PriorityOrder<T> extends ReadyOrder<T> {
  private final PriorityLines<T> lines;
  private final long agingNanos; // 0: off

  PriorityOrder(long agingNanos) {
    this.agingNanos = agingNanos;
    this.lines = new PriorityLines<>(agingNanos > 0);
  }

  @Override
  Entry<T> newEntry(T item, int priority) {
    return new PriorityEntry<>(item, priority);
  }

  @Override
  void append(Entry<T> e, long readySince) {
    PriorityEntry<T> p = (PriorityEntry<T>) e;
    PriorityEntry<T> newest = lines.newest();
    // The age line stays sorted, which is what lets aging look at its head only: an item
    // promoted late (its ready time before the newest's) counts as ready since the newest.
    p.readySince = newest != null && readySince - newest.readySince < 0
        ? newest.readySince : readySince;
    lines.append(p);
  }

  @Override
  Entry<T> poll(long now) {
    PriorityEntry<T> e = lines.top();
    if (e == null) {
      return null;
    }
    if (agingNanos > 0) {
      PriorityEntry<T> oldest = lines.oldest();
      if (oldest != e && now - oldest.readySince >= agingNanos) {
        e = oldest; // waited past the threshold: served ahead of every priority
      }
    }
    lines.remove(e);
    return e;
  }

  @Override
  void raise(Entry<T> e, int priority) {
    lines.moveTo((PriorityEntry<T>) e, priority); // to the tail of its new line
  }

  @Override
  int size() {
    return lines.size();
  }

  @Override
  boolean readsClock() {
    return agingNanos > 0;
  }

  @Override
  boolean checkInvariants() {
    return lines.checkInvariants();
  }
}
