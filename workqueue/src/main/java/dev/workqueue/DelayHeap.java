package dev.workqueue;

import java.util.Arrays;

/**
 * The waiting room of a delaying queue: a binary min-heap of items by ready time, with an
 * index from item to heap position. Not thread-safe: the queue's lock guards it.
 *
 * <p><b>Layout.</b> Parallel arrays by heap position: {@code items}, {@code readyAt} (the
 * ready time, so a comparison touches two {@code long}s and never dereferences an item),
 * {@code seq} (insertion order, breaking ties so equal ready times come out first-in
 * first-out), {@code hashes} (the item's spread hash) and {@code slotOf} (where the item sits
 * in the index). The index is an open-addressing table of {@code int}s holding heap position
 * + 1 (0 = empty), probed linearly. Every move of an item inside the heap rewrites its index
 * slot through {@code slotOf}, so sifting never hashes; an item costs about 32 bytes plus
 * array slack, against ~80 for a heap plus a {@code HashMap<T, Integer>}.
 *
 * <p><b>Times</b> are clock readings and may wrap: they are compared by the sign of their
 * difference, which is valid while all pending ready times lie within 2^63 ns of each other
 * (delays are clamped to half that).
 *
 * <p><b>Earliest wins.</b> {@link #offerEarliest} keeps an item's earlier ready time: adding
 * a waiting item again can only move it forward (client-go's rule). {@link #schedule} sets
 * the time either way (the opt-in reschedule).
 */
final class DelayHeap<T> {
  private static final int MIN_CAPACITY = 16;

  private Object[] items;
  private long[] readyAt;
  private long[] seq;
  private int[] hashes;
  private int[] slotOf;
  private int size;
  private long nextSeq;

  private int[] table; // heap position + 1, 0 = empty; length a power of two >= 2 * capacity
  private int mask;
  private int shift; // 32 - log2(table.length): a home slot is the top bits of the hash

  DelayHeap() {
    allocate(MIN_CAPACITY);
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The earliest ready time; only when not empty. */
  long headReadyAt() {
    return readyAt[0];
  }

  @SuppressWarnings("unchecked")
  T head() {
    return (T) items[0];
  }

  boolean contains(T item) {
    return find(item, spread(item.hashCode())) >= 0;
  }

  /** The ready time of a waiting item; only if {@link #contains} it. */
  long readyAtOf(T item) {
    int slot = find(item, spread(item.hashCode()));
    return readyAt[table[slot] - 1];
  }

  /**
   * Adds {@code item} to be ready at {@code at}, or moves a waiting {@code item} to {@code at}
   * if that is earlier.
   *
   * @return true if the item was added or moved
   */
  boolean offerEarliest(T item, long at) {
    int hash = spread(item.hashCode());
    int slot = find(item, hash);
    if (slot < 0) {
      insert(item, hash, at);
      return true;
    }
    int pos = table[slot] - 1;
    if (at - readyAt[pos] < 0) {
      readyAt[pos] = at;
      siftUp(pos);
      return true;
    }
    return false;
  }

  /** Sets {@code item}'s ready time to {@code at}, earlier or later, adding it if absent. */
  void schedule(T item, long at) {
    int hash = spread(item.hashCode());
    int slot = find(item, hash);
    if (slot < 0) {
      insert(item, hash, at);
      return;
    }
    int pos = table[slot] - 1;
    long old = readyAt[pos];
    readyAt[pos] = at;
    seq[pos] = nextSeq++; // a rescheduled item queues behind others with the same time
    if (at - old < 0) {
      siftUp(pos);
    } else {
      siftDown(pos);
    }
  }

  /** Removes a waiting item; returns whether it was waiting. */
  boolean remove(T item) {
    int slot = find(item, spread(item.hashCode()));
    if (slot < 0) {
      return false;
    }
    removeAt(table[slot] - 1);
    return true;
  }

  /** Removes and returns the head; only when not empty. */
  T poll() {
    T head = head();
    removeAt(0);
    return head;
  }

  void clear() {
    size = 0;
    allocate(MIN_CAPACITY);
  }

  // ---- heap ----

  private boolean before(int i, int j) {
    long d = readyAt[i] - readyAt[j];
    return d < 0 || (d == 0 && seq[i] - seq[j] < 0);
  }

  private void insert(T item, int hash, long at) {
    if (size == items.length) {
      allocateAndCopy(items.length * 2);
    }
    int pos = size++;
    items[pos] = item;
    readyAt[pos] = at;
    seq[pos] = nextSeq++;
    hashes[pos] = hash;
    int slot = emptySlot(hash);
    table[slot] = pos + 1;
    slotOf[pos] = slot;
    siftUp(pos);
  }

  private void removeAt(int pos) {
    deleteSlot(slotOf[pos]);
    int last = --size;
    if (pos != last) {
      move(last, pos);
      if (pos > 0 && before(pos, (pos - 1) >>> 1)) {
        siftUp(pos);
      } else {
        siftDown(pos);
      }
    }
    items[last] = null;
    if (items.length > MIN_CAPACITY && size < items.length >>> 2) {
      allocateAndCopy(items.length >>> 1);
    }
  }

  /** Copies position {@code from} to {@code to} and points the item's index slot at it. */
  private void move(int from, int to) {
    items[to] = items[from];
    readyAt[to] = readyAt[from];
    seq[to] = seq[from];
    hashes[to] = hashes[from];
    slotOf[to] = slotOf[from];
    table[slotOf[to]] = to + 1;
  }

  private void swap(int i, int j) {
    Object item = items[i];
    long at = readyAt[i];
    long sq = seq[i];
    int hash = hashes[i];
    int slot = slotOf[i];
    move(j, i);
    items[j] = item;
    readyAt[j] = at;
    seq[j] = sq;
    hashes[j] = hash;
    slotOf[j] = slot;
    table[slot] = j + 1;
  }

  private void siftUp(int pos) {
    while (pos > 0) {
      int parent = (pos - 1) >>> 1;
      if (!before(pos, parent)) {
        return;
      }
      swap(pos, parent);
      pos = parent;
    }
  }

  private void siftDown(int pos) {
    int half = size >>> 1;
    while (pos < half) {
      int child = 2 * pos + 1;
      int right = child + 1;
      if (right < size && before(right, child)) {
        child = right;
      }
      if (!before(child, pos)) {
        return;
      }
      swap(pos, child);
      pos = child;
    }
  }

  // ---- index: linear probing over heap positions ----

  /** Fibonacci hashing: the multiply carries every bit of {@code h} into the top bits. */
  private static int spread(int h) {
    return h * 0x9E3779B9;
  }

  private int home(int hash) {
    return hash >>> shift;
  }

  /** The slot holding {@code item}, or -1. */
  private int find(Object item, int hash) {
    for (int s = home(hash); ; s = (s + 1) & mask) {
      int entry = table[s];
      if (entry == 0) {
        return -1;
      }
      int pos = entry - 1;
      if (hashes[pos] == hash && item.equals(items[pos])) {
        return s;
      }
    }
  }

  private int emptySlot(int hash) {
    int s = home(hash);
    while (table[s] != 0) {
      s = (s + 1) & mask;
    }
    return s;
  }

  /** Empties {@code slot} and shifts later entries of its probe run back (no tombstones). */
  private void deleteSlot(int slot) {
    int hole = slot;
    table[hole] = 0;
    for (int s = (hole + 1) & mask; table[s] != 0; s = (s + 1) & mask) {
      int pos = table[s] - 1;
      int h = home(hashes[pos]);
      // The entry at s may move into the hole unless its home lies cyclically in (hole, s].
      boolean stays = hole <= s ? (hole < h && h <= s) : (hole < h || h <= s);
      if (!stays) {
        table[hole] = table[s];
        slotOf[pos] = hole;
        table[s] = 0;
        hole = s;
      }
    }
  }

  private void allocate(int capacity) {
    items = new Object[capacity];
    readyAt = new long[capacity];
    seq = new long[capacity];
    hashes = new int[capacity];
    slotOf = new int[capacity];
    table = new int[capacity * 2];
    mask = table.length - 1;
    shift = Integer.numberOfLeadingZeros(mask);
  }

  private void allocateAndCopy(int capacity) {
    Object[] oldItems = items;
    long[] oldReadyAt = readyAt;
    long[] oldSeq = seq;
    int[] oldHashes = hashes;
    allocate(capacity);
    System.arraycopy(oldItems, 0, items, 0, size);
    System.arraycopy(oldReadyAt, 0, readyAt, 0, size);
    System.arraycopy(oldSeq, 0, seq, 0, size);
    System.arraycopy(oldHashes, 0, hashes, 0, size);
    for (int pos = 0; pos < size; pos++) {
      int slot = emptySlot(hashes[pos]);
      table[slot] = pos + 1;
      slotOf[pos] = slot;
    }
  }

  /** For tests: the number of slots the heap's arrays have now (it grows and shrinks). */
  int capacity() {
    return items.length;
  }

  /** For tests: the heap and index agree with each other. */
  boolean checkInvariants() {
    int indexed = 0;
    for (int s = 0; s < table.length; s++) {
      if (table[s] != 0) {
        indexed++;
        if (slotOf[table[s] - 1] != s) {
          return false;
        }
      }
    }
    for (int pos = 1; pos < size; pos++) {
      if (before(pos, (pos - 1) >>> 1)) {
        return false;
      }
    }
    return indexed == size
        && Arrays.stream(items, size, items.length).allMatch(o -> o == null);
  }
}
