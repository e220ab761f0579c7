package dev.workqueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The waiting room of a delaying queue: an 8-ary min-heap of items by ready time, with an
 * index from item to heap position. Not thread-safe: the queue's lock guards it. This class is
 * what is keyed by item: it finds an item's position and decides what an add does; its array
 * half ({@link HeapArrays}) moves the entries, and says what they cost and how they are laid
 * out.
 *
 * <p><b>Deferred adds.</b> The index probe of an add behind the head is deferred and done in
 * batches ({@link #offerEarliestDeferred}, {@link DeferredAdds}) so that the cache misses of a
 * large heap overlap.
 *
 * <p><b>Earliest wins.</b> {@link #offerEarliest} keeps an item's earlier ready time: adding
 * a waiting item again can only move it forward (client-go's rule), and it keeps its place
 * among equal ready times. {@link #schedule} sets the time either way (the opt-in
 * reschedule), and queues the item behind others with the same time.
 */
final class DelayHeap<T> extends HeapArrays {
  private static final Logger log = LoggerFactory.getLogger(DelayHeap.class);
  /** From this index size (256 KiB) on, a batch reads its slots ahead. */
  private static final int PREFETCH_TABLE = 1 << 16;

  private final DeferredAdds deferred = new DeferredAdds();

  /** A heap without payloads. */
  DelayHeap() {
    this(false);
  }

  /**
   * @param withPayload whether each item carries an {@code int} payload (a priority queue keeps
   *     a waiting item's priority there); merges keep the larger payload
   */
  DelayHeap(boolean withPayload) {
    super(withPayload);
  }

  /** Returned by {@link #removeReturningPayload} for an item that was not waiting. */
  static final long ABSENT = Long.MIN_VALUE;

  int size() {
    flush();
    return size;
  }

  /** Exact without applying deferred adds: there are some only while the heap holds items. */
  boolean isEmpty() {
    return size == 0;
  }

  /**
   * The earliest ready time; only when not empty. Exact without applying deferred adds (and so
   * is {@link #head}): each is later than the head was when it was made, and only methods that
   * apply them first change the head.
   */
  long headReadyAt() {
    return readyAt(0);
  }

  @SuppressWarnings("unchecked")
  T head() {
    return (T) itemAt(0);
  }

  /**
   * The head's payload; only when not empty (0 without payloads). Applies the deferred adds
   * first: one of them may be a merge into the head that raises its payload.
   */
  int headPayload() {
    if (!hasPayloads()) {
      return 0;
    }
    flush();
    return payload(0);
  }

  boolean contains(T item) {
    flush();
    return index.find(item, index.hash(item)) >= 0;
  }

  /** The ready time of a waiting item; only if {@link #contains} it. */
  long readyAtOf(T item) {
    flush();
    return readyAt(index.find(item, index.hash(item)));
  }

  /**
   * Adds {@code item} to be ready at {@code at}, or moves a waiting {@code item} to {@code at}
   * if that is earlier.
   *
   * @return true if the item was added or moved
   */
  boolean offerEarliest(T item, long at) {
    return offerEarliest(item, at, 0);
  }

  /**
   * {@link #offerEarliest(Object, long)} with a payload: a waiting item keeps the larger of its
   * payload and {@code payload}.
   */
  boolean offerEarliest(T item, long at, int payload) {
    flush();
    return apply(item, index.hash(item), at, payload);
  }

  /**
   * {@link #offerEarliest} without its answer, and possibly later: an add whose ready time is
   * later than the head's (so it cannot change the head) is kept in a small buffer and
   * applied with others in one batch, before any method that could see the difference. A
   * batch reads the index slots of all its items first, so the cache misses of a large heap
   * overlap instead of being paid one after the other, each behind the queue's lock. Other
   * adds are applied at once.
   */
  void offerEarliestDeferred(T item, long at, int payload) {
    if (size == 0 || at - readyAt(0) <= 0) { // a tie may win too: a waiting item keeps its seq
      offerEarliest(item, at, payload);
      return;
    }
    int hash = index.hash(item); // the caller's hashCode runs now, in its own call
    if (deferred.isFull()) {
      flush();
    }
    deferred.add(item, at, payload, hash);
  }

  /** {@link #offerEarliestDeferred(Object, long, int)} without a payload. */
  void offerEarliestDeferred(T item, long at) {
    offerEarliestDeferred(item, at, 0);
  }

  /**
   * Applies the deferred adds, in the order they were made. An item whose {@code equals} throws
   * here, after its own call returned, is dropped (and logged): it costs no other item its
   * place, and the caller whose operation applied the batch does not see the exception.
   */
  private void flush() {
    DeferredAdds d = deferred;
    if (d.count() == 0) {
      return;
    }
    if (index.length() >= PREFETCH_TABLE) {
      index.ensureRoom(size + d.count(), size); // grow the index once, before reading it
      d.readAhead(index);
    }
    for (int i = 0, n = d.take(); i < n; i++) {
      @SuppressWarnings("unchecked")
      T item = (T) d.item(i);
      try {
        apply(item, d.hash(i), d.readyAt(i), d.payload(i));
      } catch (RuntimeException e) {
        log.error("a delayed add of an item whose equals threw was dropped; other items are"
            + " unaffected", e);
      }
    }
  }

  private boolean apply(T item, int hash, long at, int payload) {
    int pos = index.find(item, hash);
    if (pos < 0) {
      insert(item, hash, at, payload);
      return true;
    }
    raisePayload(pos, payload);
    if (at - readyAt(pos) < 0) {
      moveEarlier(pos, at); // keeps the waiting instance
      return true;
    }
    return false;
  }

  /** Sets {@code item}'s ready time to {@code at}, earlier or later, adding it if absent. */
  void schedule(T item, long at) {
    schedule(item, at, 0);
  }

  /** {@link #schedule(Object, long)} with a payload for a new item; a waiting item keeps its own. */
  void schedule(T item, long at, int payload) {
    flush();
    int hash = index.hash(item);
    int pos = index.find(item, hash);
    if (pos < 0) {
      insert(item, hash, at, payload);
      return;
    }
    moveTo(pos, at); // behind others with the same time; keeps the waiting instance
  }

  /** Whether {@code item} waits with a ready time reached at {@code now}. */
  boolean isDue(T item, long now) {
    flush();
    int pos = index.find(item, index.hash(item));
    return pos >= 0 && now - readyAt(pos) >= 0;
  }

  /** Removes a waiting item; returns whether it was waiting. */
  boolean remove(T item) {
    return removeReturningPayload(item) != ABSENT;
  }

  /** Removes a waiting item; returns its payload, or {@link #ABSENT} if it was not waiting. */
  long removeReturningPayload(T item) {
    flush();
    int pos = index.find(item, index.hash(item));
    if (pos < 0) {
      return ABSENT;
    }
    int p = payload(pos);
    removeAt(pos);
    return p;
  }

  /** Removes and returns the head; only when not empty. */
  T poll() {
    flush();
    T head = head();
    removeAt(0);
    return head;
  }

  void clear() {
    deferred.clear();
    reset();
  }

  /** For tests: the heap and index agree with each other. */
  boolean checkInvariants() {
    flush();
    return checkHeap();
  }
}
