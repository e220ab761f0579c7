package dev.workqueue;

/**
 * client-go's order: one first-in first-out line, linked through the entries, sorted by {@link
 * Entry#readySince} (an entry never counts as ready earlier than the one before it), so that
 * the queue can merge the due items of its waiting room into it by time without moving them
 * in first ({@link QueueEngine}).
 */
final class FifoOrder<T> extends ReadyOrder<T> {
  private Entry<T> head;
  private Entry<T> tail;
  private int size;

  @Override
  Entry<T> newEntry(T item, int priority) {
    return new Entry<>(item, priority);
  }

  @Override
  void append(Entry<T> e, long readySince) {
    e.readySince = tail != null && readySince - tail.readySince < 0 ? tail.readySince : readySince;
    e.behind = null;
    if (tail == null) {
      head = e;
    } else {
      tail.behind = e;
    }
    tail = e;
    size++;
  }

  @Override
  Entry<T> poll(long now) {
    Entry<T> e = head;
    if (e != null) {
      head = e.behind;
      e.behind = null; // a popped entry holds no other entry alive
      if (head == null) {
        tail = null;
      }
      size--;
    }
    return e;
  }

  @Override
  int size() {
    return size;
  }

  /** When the head became ready; only when not empty. */
  long headReadySince() {
    return head.readySince;
  }

  @Override
  boolean checkInvariants() {
    int n = 0;
    Entry<T> last = null;
    for (Entry<T> e = head; e != null; e = e.behind) {
      if (e.ready != Entry.READY || (last != null && e.readySince - last.readySince < 0)) {
        return false;
      }
      last = e;
      n++;
    }
    return n == size && last == tail;
  }
}
