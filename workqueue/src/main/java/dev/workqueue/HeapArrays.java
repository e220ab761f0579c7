package dev.workqueue;

import dev.workqueue.internal.SlotIndex;
import java.util.Arrays;

/**
 * The array half of {@link DelayHeap}: an 8-ary min-heap of entries by ready time in parallel
 * arrays, whose every move tells the item-to-position index ({@link SlotIndex}) where the entry
 * went. It knows positions, not items: {@link DelayHeap} finds an item's position and decides
 * what an add does (earliest wins, reschedule, deferred adds); this class moves the entry. The
 * heap extends it rather than holding it, so that the sift loops and the heap's hot reads
 * ({@link DelayHeap#isEmpty}, {@link DelayHeap#headReadyAt}) read fields of one object. Not
 * thread-safe: the queue's lock guards it.
 *
 * <p><b>What costs.</b> With a large heap (a million waiting items) nearly all the time goes to
 * cache misses, and on a virtual machine a miss to memory costs several hundred ns: every move
 * of an entry writes its slot in the index, a random place. Eight children per node (two cache
 * lines of keys) cut the moves of a random insert from ~0.6 (binary) to ~0.13 and the levels a
 * poll moves through to a third. (Measured with 1 M waiting: binary ~2x the time of 4-ary per
 * insert, 8-ary ~15% below 4-ary.)
 *
 * <p><b>Layout.</b> By heap position: {@code items}, each item's hash (taken once, when it
 * came in), and two {@code long}s side by side in {@code keys}: the ready time, and the
 * insertion number ({@code seq}, high half; it breaks ties so equal ready times come out
 * first-in first-out) packed with the item's <em>link</em> in the index (low half). A
 * comparison reads one cache line and never dereferences an item; moving an entry touches two
 * lines and writes its index slot without reading it.
 *
 * <p>The index is a {@link SlotIndex}: an open-addressing table of {@code int}s (at most half
 * full, fingerprints beside positions, so looking up an absent item costs one random memory
 * access), with a bounded probe and an overflow map that keep keys sharing one hash at
 * O(log n) calls of {@code equals}/{@code compareTo} (see there). Deletion and resizing read
 * the hashes kept here, so they never call an item's {@code hashCode} while they move other
 * items' slots (one that throws, or a key changed while it waits, costs no other item its
 * place).
 *
 * <p>Arrays grow by half and the index doubles with the number of items; both shrink, in one
 * step to the size they need, once fewer than {@link #SHRINK_LIMIT} items are left (so a
 * draining heap never pauses for a big copy or rehash). About 32 bytes per item plus array
 * slack, against ~80 for a heap plus a {@code HashMap<T, Integer>}.
 *
 * <p><b>Times</b> are clock readings and may wrap: they are compared by the sign of their
 * difference, which is valid while all pending ready times lie within 2^63 ns of each other
 * (delays are clamped to half that). Insertion numbers are {@code int}s; when they run out
 * (after 2^32 insertions) the live ones are renumbered in order.
 */
abstract class HeapArrays implements SlotIndex.Owner {
  /** Children per node: a random insert moves ~0.13 levels (a binary heap ~0.6), see above. */
  private static final int ARITY = 8;
  private static final int MIN_CAPACITY = 16;
  private static final int MIN_TABLE = 32;
  /** Positions are limited so that a first child's position (ARITY * position + 1) fits. */
  private static final int MAX_CAPACITY = SlotIndex.MAX_POSITIONS;
  private static final long SLOT_MASK = 0xFFFF_FFFFL;
  /**
   * The arrays and the index shrink only once this few items are left, in one step to their
   * size: a shrink copies or rehashes every item, under the queue's lock, and a heap draining
   * from a million must not pause an {@code add} for that (a rehash of 250,000 items takes tens
   * of milliseconds). Below the limit a shrink costs well under a millisecond.
   */
  private static final int SHRINK_LIMIT = 16_384;

  private Object[] items;
  /** By heap position, each item's payload (a priority queue's priority); null if unused. */
  private int[] payloads;
  private long[] keys; // [2p] ready time, [2p + 1] seq << 32 | link in the index
  /** By heap position, each item's hash ({@link SlotIndex#hash}), taken when it came in. */
  private int[] hashes;
  /** The number of entries in the arrays (deferred adds of {@link DelayHeap} not counted). */
  int size;
  private int nextSeq = Integer.MIN_VALUE;

  /** From item to heap position; the heap looks items up in it, moves here keep it current. */
  final SlotIndex index = new SlotIndex(this, MIN_TABLE);

  /** @param withPayload whether each entry carries an {@code int} payload */
  HeapArrays(boolean withPayload) {
    items = new Object[MIN_CAPACITY];
    payloads = withPayload ? new int[MIN_CAPACITY] : null;
    keys = new long[2 * MIN_CAPACITY];
    hashes = new int[MIN_CAPACITY];
  }

  /** The ready time of the entry at {@code pos}. */
  final long readyAt(int pos) {
    return keys[2 * pos];
  }

  final boolean hasPayloads() {
    return payloads != null;
  }

  /** The payload of the entry at {@code pos} (0 without payloads). */
  final int payload(int pos) {
    return payloads == null ? 0 : payloads[pos];
  }

  /** Keeps the larger of the payload at {@code pos} and {@code payload}. */
  final void raisePayload(int pos, int payload) {
    if (payloads != null && payload > payloads[pos]) {
      payloads[pos] = payload;
    }
  }

  /** Moves the entry at {@code pos} to the earlier {@code at}; it keeps its insertion number. */
  final void moveEarlier(int pos, long at) {
    siftUp(pos, items[pos], at, keys[2 * pos + 1], payload(pos), hashes[pos]);
  }

  /**
   * Moves the entry at {@code pos} to {@code at}, earlier or later, behind others with the same
   * time (a new insertion number).
   */
  final void moveTo(int pos, long at) {
    long old = keys[2 * pos];
    long meta = pack(takeSeq(), (int) keys[2 * pos + 1]);
    // takeSeq may have renumbered: the entry's position is unchanged, its seq is replaced.
    Object waiting = items[pos]; // keeps the instance that waits
    int p = payload(pos);
    int h = hashes[pos];
    if (at - old < 0) {
      siftUp(pos, waiting, at, meta, p, h);
    } else {
      siftDown(pos, waiting, at, meta, p, h);
    }
  }

  /** An entry's second key: its insertion number, and its link in the index. */
  private static long pack(int seq, int link) {
    return (long) seq << 32 | (link & SLOT_MASK);
  }

  /** Whether (at, meta) comes out before the entry at {@code pos}. */
  private boolean before(long at, long meta, int pos) {
    long d = at - keys[2 * pos];
    return d < 0 || (d == 0 && (int) (meta >> 32) < (int) (keys[2 * pos + 1] >> 32));
  }

  /** Adds an absent item. If the index throws (an overflow's equals), nothing changed. */
  final void insert(Object item, int hash, long at, int payload) {
    if (size == items.length) {
      grow();
    }
    index.ensureRoom(size + 1, size);
    int link = index.add(item, hash, size);
    // place writes the slot
    siftUp(size++, item, at, pack(takeSeq(), link), payload, hash);
  }

  final void removeAt(int pos) {
    index.remove((int) keys[2 * pos + 1]);
    int last = --size;
    if (pos != last) {
      Object item = items[last];
      long at = keys[2 * last];
      long meta = keys[2 * last + 1];
      int p = payload(last);
      int h = hashes[last];
      if (pos > 0 && before(at, meta, (pos - 1) / ARITY)) {
        siftUp(pos, item, at, meta, p, h);
      } else {
        siftDown(pos, item, at, meta, p, h);
      }
    }
    items[last] = null;
    if (size <= SHRINK_LIMIT) {
      if (items.length > MIN_CAPACITY && size < items.length >>> 2) {
        resize(Math.max(MIN_CAPACITY, 2 * size));
      }
      index.shrinkIfSparse(size);
    }
  }

  /** Drops every entry; the arrays and the index go back to their first size. */
  final void reset() {
    size = 0;
    items = new Object[MIN_CAPACITY];
    payloads = payloads == null ? null : new int[MIN_CAPACITY];
    keys = new long[2 * MIN_CAPACITY];
    hashes = new int[MIN_CAPACITY];
    index.clear();
  }

  /** Puts the entry at {@code pos} and points its index slot there. */
  private void place(int pos, Object item, long at, long meta, int payload, int hash) {
    items[pos] = item;
    if (payloads != null) {
      payloads[pos] = payload;
    }
    keys[2 * pos] = at;
    keys[2 * pos + 1] = meta;
    hashes[pos] = hash;
    index.move((int) meta, pos); // writes the slot without reading it: no miss on a large index
  }

  /** Moves (item, at, meta) from the hole at {@code pos} towards the root to its place. */
  private void siftUp(int pos, Object item, long at, long meta, int payload, int hash) {
    while (pos > 0) {
      int parent = (pos - 1) / ARITY;
      if (!before(at, meta, parent)) {
        break;
      }
      place(pos, items[parent], keys[2 * parent], keys[2 * parent + 1], payload(parent),
          hashes[parent]);
      pos = parent;
    }
    place(pos, item, at, meta, payload, hash);
  }

  /** Moves (item, at, meta) from the hole at {@code pos} towards the leaves to its place. */
  private void siftDown(int pos, Object item, long at, long meta, int payload, int hash) {
    while (true) {
      int first = ARITY * pos + 1;
      if (first >= size) {
        break;
      }
      int end = Math.min(first + ARITY, size);
      int child = first;
      long childAt = keys[2 * first];
      long childMeta = keys[2 * first + 1];
      for (int c = first + 1; c < end; c++) {
        long cAt = keys[2 * c];
        long cMeta = keys[2 * c + 1];
        if (before(cAt, cMeta, childAt, childMeta)) {
          child = c;
          childAt = cAt;
          childMeta = cMeta;
        }
      }
      if (!before(childAt, childMeta, at, meta)) {
        break;
      }
      place(pos, items[child], childAt, childMeta, payload(child), hashes[child]);
      pos = child;
    }
    place(pos, item, at, meta, payload, hash);
  }

  private static boolean before(long at1, long meta1, long at2, long meta2) {
    long d = at1 - at2;
    return d < 0 || (d == 0 && (int) (meta1 >> 32) < (int) (meta2 >> 32));
  }

  private void grow() {
    if (items.length >= MAX_CAPACITY) {
      throw new IllegalStateException("a delaying queue holds at most " + MAX_CAPACITY
          + " waiting items");
    }
    resize(Math.min(MAX_CAPACITY, items.length + (items.length >>> 1)));
  }

  private void resize(int capacity) {
    items = Arrays.copyOf(items, capacity);
    if (payloads != null) {
      payloads = Arrays.copyOf(payloads, capacity);
    }
    keys = Arrays.copyOf(keys, 2 * capacity);
    hashes = Arrays.copyOf(hashes, capacity);
  }

  /** The next insertion number; renumbers the live entries when they run out. */
  private int takeSeq() {
    if (nextSeq == Integer.MAX_VALUE) {
      renumber();
    }
    return nextSeq++;
  }

  /** Gives the live entries the insertion numbers MIN_VALUE, MIN_VALUE + 1, ... in order. */
  private void renumber() {
    long[] order = new long[size]; // (seq - MIN_VALUE) << 28 | position: sorts by seq
    for (int pos = 0; pos < size; pos++) {
      long seq = (int) (keys[2 * pos + 1] >> 32) - (long) Integer.MIN_VALUE;
      order[pos] = seq << 28 | pos;
    }
    Arrays.sort(order);
    int seq = Integer.MIN_VALUE;
    for (long o : order) {
      int pos = (int) (o & (MAX_CAPACITY - 1));
      keys[2 * pos + 1] = pack(seq++, (int) keys[2 * pos + 1]);
    }
    nextSeq = seq; // the relative order of every pair is unchanged, so the heap still holds
  }

  /** For tests: the next insertion number will be {@code seq}. */
  final void setNextSeq(int seq) {
    nextSeq = seq;
  }

  // ---- what the index reads and writes by position ----

  @Override
  public final Object itemAt(int pos) {
    return items[pos];
  }

  @Override
  public final int hashAt(int pos) {
    return hashes[pos];
  }

  @Override
  public final int linkAt(int pos) {
    return (int) keys[2 * pos + 1];
  }

  @Override
  public final void relink(int pos, int link) {
    keys[2 * pos + 1] = pack((int) (keys[2 * pos + 1] >> 32), link);
  }

  /** For tests: the number of slots the heap's arrays have now (it grows and shrinks). */
  final int capacity() {
    return items.length;
  }

  /** For tests: the arrays hold a heap, each kept hash is its item's, and the index agrees. */
  final boolean checkHeap() {
    for (int pos = 0; pos < size; pos++) {
      if (hashes[pos] != index.hash(items[pos])) {
        return false;
      }
    }
    for (int pos = 1; pos < size; pos++) {
      int parent = (pos - 1) / ARITY;
      if (before(keys[2 * pos], keys[2 * pos + 1], parent)) {
        return false;
      }
    }
    return index.check(size) && Arrays.stream(items, size, items.length).allMatch(o -> o == null);
  }
}
