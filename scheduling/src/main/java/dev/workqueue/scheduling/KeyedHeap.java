package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A 4-ary min-heap whose elements are also reachable by key, in five arrays and no per-element
 * object: the heap holds the elements by position (and each one's slot in the key table), and
 * an open-addressing table holds the keys by slot (with each one's hash and heap position).
 * Comparisons read the elements straight from the heap's array, as {@code PriorityQueue}'s
 * do; a move writes the element, its slot and the slot's position, all in arrays. Sifting never
 * hashes a key or boxes an index.
 *
 * <table>
 *   <caption>Costs</caption>
 *   <tr><td>{@link #addOrUpdate}, {@link #delete}, {@link #pop}</td><td>O(log n)</td></tr>
 *   <tr><td>{@link #peek}, {@link #get}, {@link #has}, {@link #size}</td><td>O(1)</td></tr>
 *   <tr><td>{@link #list}</td><td>O(n), in array (not sorted) order</td></tr>
 * </table>
 *
 * <p>The head is the least element by the comparator. Sort keys must not change while an
 * element is in the heap: to change one, call {@link #addOrUpdate} with a new element (or
 * {@link #delete} the key first, change the element, and add it again). Elements that compare
 * equal come out in no particular order; put a tie-breaker in the comparator if order matters.
 * The comparator should not throw (the scheduling queue's comparators catch what the user's
 * code throws): if it does, the element being moved stays where the sift had taken it, so
 * every key still leads to its own element and nothing is lost, but the heap order around
 * that element may be wrong until it is updated or removed.
 *
 * <p>Not thread-safe: the scheduling queue guards each heap with its own lock.
 *
 * @param <K> the key type, compared with {@code equals}/{@code hashCode}
 * @param <T> the element type
 */
final class KeyedHeap<K, T> {
  private static final Object[] EMPTY = new Object[0];
  private static final int[] EMPTY_INTS = new int[0];
  private static final int MIN_TABLE = 16;
  /**
   * Children per node: a 4-ary heap is half as deep as a binary one, so a pop moves half as many
   * elements (each move also writes the key table), and a node's children are usually in one
   * cache line.
   */
  private static final int ARITY = 4;

  private final Function<? super T, ? extends K> keyFunction;
  private final Comparator<? super T> comparator;

  // ---- the heap, by position ----
  private Object[] elements = EMPTY;
  /** The key table's slot of the element at each position. */
  private int[] slotOf = EMPTY_INTS;
  private int size;

  // ---- the keys, by slot: linear probing from the top bits of the spread hash ----
  /**
   * At most half full, so a probe for an absent key usually ends at its first slot. Deletion
   * shifts the rest of the probe run back (no tombstones).
   */
  private Object[] keys = new Object[MIN_TABLE];
  /** The spread hash of each slot's key: probing compares it before calling {@code equals}. */
  private int[] hashes = new int[MIN_TABLE];
  /** The heap position of each slot's element. */
  private int[] positionOf = new int[MIN_TABLE];
  private int shift = 32 - Integer.numberOfTrailingZeros(MIN_TABLE);

  /**
   * An empty heap.
   *
   * @param keyFunction gives an element's key, never null; called once per
   *     {@link #addOrUpdate}, the key is then kept with the element
   * @param comparator orders the elements, least at the head; it must be consistent while an
   *     element is in the heap (see the class comment)
   */
  public KeyedHeap(Function<? super T, ? extends K> keyFunction, Comparator<? super T> comparator) {
    this.keyFunction = Checks.nonNull(keyFunction, "keyFunction");
    this.comparator = Checks.nonNull(comparator, "comparator");
  }

  /**
   * Adds {@code element}, or replaces the element with the same key and moves it to its new
   * place.
   *
   * @param element the element to hold; its key is taken with the key function
   * @return the element replaced, or null if the key was new
   * @throws NullPointerException if {@code element} or its key is null
   */
  public T addOrUpdate(T element) {
    Checks.nonNull(element, "element");
    K key = keyOf(element);
    int hash = spread(key.hashCode());
    int slot = find(key, hash);
    if (slot < 0) {
      if (size == elements.length) {
        int length = Math.max(16, size + (size >> 1));
        Object[] es = Arrays.copyOf(elements, length); // both allocated before either is kept
        int[] so = Arrays.copyOf(slotOf, length);
        elements = es;
        slotOf = so;
      }
      if (2 * (size + 1) > keys.length) {
        rehash(keys.length * 2);
      }
      siftUp(size++, element, insertSlot(key, hash));
      return null;
    }
    int index = positionOf[slot];
    T previous = element(index);
    fix(index, element, slot);
    return previous;
  }

  /**
   * Removes the element with {@code key}.
   *
   * @param key the key of the element to remove, not null
   * @return the removed element, or null if there was none
   */
  public T delete(K key) {
    int slot = find(key);
    return slot < 0 ? null : removeAt(positionOf[slot]);
  }

  /**
   * Removes and returns the head.
   *
   * @return the least element by the comparator, or null if the heap is empty
   */
  public T pop() {
    return size == 0 ? null : removeAt(0);
  }

  /**
   * The head, without removing it.
   *
   * @return the least element by the comparator, or null if the heap is empty
   */
  public T peek() {
    return size == 0 ? null : element(0);
  }

  /**
   * The element with {@code key}.
   *
   * @param key the key to look up, not null
   * @return the element held under {@code key}, or null if there is none
   */
  public T get(K key) {
    int slot = find(key);
    return slot < 0 ? null : element(positionOf[slot]);
  }

  /**
   * Whether an element with {@code key} is held.
   *
   * @param key the key to look up, not null
   * @return true if the heap holds an element under {@code key}
   */
  public boolean has(K key) {
    return find(key) >= 0;
  }

  /**
   * The elements in heap (array) order: the head first, the rest in no particular order.
   *
   * @return a new modifiable list of every element
   */
  public List<T> list() {
    List<T> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(element(i));
    }
    return out;
  }

  /**
   * The number of elements.
   *
   * @return how many keys the heap holds
   */
  public int size() {
    return size;
  }

  /**
   * Whether the heap holds nothing.
   *
   * @return true if {@link #size} is 0
   */
  public boolean isEmpty() {
    return size == 0;
  }

  private K keyOf(T element) {
    return Objects.requireNonNull(keyFunction.apply(element), "key of element must not be null");
  }

  @SuppressWarnings("unchecked")
  private T element(int i) {
    return (T) elements[i];
  }

  /** Puts {@code element}, whose key is in {@code slot}, at {@code index}. */
  private void place(int index, Object element, int slot) {
    elements[index] = element;
    slotOf[index] = slot;
    positionOf[slot] = index;
  }

  private T removeAt(int index) {
    T removed = element(index);
    deleteSlot(slotOf[index]);
    int last = --size;
    Object moved = elements[last];
    int movedSlot = slotOf[last];
    elements[last] = null;
    if (index != last) {
      fix(index, moved, movedSlot);
    }
    if (keys.length > MIN_TABLE && size < keys.length >>> 3) {
      rehash(keys.length / 2); // an eighth full: halve, to a quarter
    }
    return removed;
  }

  /** Puts {@code element} (key in {@code slot}), which belongs at {@code index}, in its place. */
  private void fix(int index, Object element, int slot) {
    if (siftDown(index, element, slot) == index) {
      siftUp(index, element, slot);
    }
  }

  /**
   * Moves {@code element}, which belongs at {@code index}, up: parents move into the hole. If
   * the comparator throws, the element lands in the hole it had reached: every key still leads
   * to its own element, though the order around that place may be wrong.
   */
  @SuppressWarnings("unchecked")
  private void siftUp(int index, Object element, int slot) {
    Object[] es = elements;
    try {
      while (index > 0) {
        int parent = (index - 1) / ARITY;
        Object p = es[parent];
        if (comparator.compare((T) element, (T) p) >= 0) {
          break;
        }
        place(index, p, slotOf[parent]);
        index = parent;
      }
    } finally {
      place(index, element, slot);
    }
  }

  /**
   * Moves {@code element}, which belongs at {@code index}, down: the least child moves into the
   * hole while it is less. Returns where the element ends. A throwing comparator leaves it in
   * the hole it had reached, as {@link #siftUp} does.
   */
  @SuppressWarnings("unchecked")
  private int siftDown(int index, Object element, int slot) {
    Object[] es = elements;
    int n = size;
    try {
      while (true) {
        int first = index * ARITY + 1;
        if (first >= n) {
          break;
        }
        int child = first;
        Object c = es[first];
        for (int k = first + 1, end = Math.min(first + ARITY, n); k < end; k++) {
          Object x = es[k];
          if (comparator.compare((T) x, (T) c) < 0) {
            child = k;
            c = x;
          }
        }
        if (comparator.compare((T) c, (T) element) >= 0) {
          break;
        }
        place(index, c, slotOf[child]);
        index = child;
      }
    } finally {
      place(index, element, slot);
    }
    return index;
  }

  // ---- the table of keys ----

  /** Fibonacci hashing: the multiply carries every bit of {@code h} into the top bits. */
  private static int spread(int h) {
    return h * 0x9E3779B9;
  }

  private int find(K key) {
    Checks.nonNull(key, "key");
    return find(key, spread(key.hashCode()));
  }

  /** The slot of {@code key}, or -1. */
  private int find(Object key, int hash) {
    Object[] t = keys;
    int[] h = hashes;
    int mask = t.length - 1;
    for (int i = hash >>> shift; ; i = (i + 1) & mask) {
      Object k = t[i];
      if (k == null) {
        return -1;
      }
      if (h[i] == hash && key.equals(k)) {
        return i;
      }
    }
  }

  /** Puts an absent key in the first free slot of its run; returns the slot. */
  private int insertSlot(Object key, int hash) {
    Object[] t = keys;
    int mask = t.length - 1;
    int i = hash >>> shift;
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = key;
    hashes[i] = hash;
    return i;
  }

  /**
   * Removes the key in {@code slot} and shifts later keys of its probe run back into the gap,
   * telling their elements' positions where their keys went.
   */
  private void deleteSlot(int slot) {
    Object[] t = keys;
    int[] h = hashes;
    int mask = t.length - 1;
    int gap = slot;
    for (int i = (gap + 1) & mask; t[i] != null; i = (i + 1) & mask) {
      int home = h[i] >>> shift;
      // The key at i may fill the gap if its home is not in the cyclic range (gap, i].
      if (((i - home) & mask) >= ((i - gap) & mask)) {
        t[gap] = t[i];
        h[gap] = h[i];
        int position = positionOf[i];
        positionOf[gap] = position;
        slotOf[position] = gap;
        gap = i;
      }
    }
    t[gap] = null;
  }

  private void rehash(int length) {
    Object[] oldKeys = keys;
    int[] oldHashes = hashes;
    Object[] k = new Object[length]; // all three allocated before any is kept
    int[] h = new int[length];
    int[] p = new int[length];
    keys = k;
    hashes = h;
    positionOf = p;
    shift = 32 - Integer.numberOfTrailingZeros(length);
    for (int i = 0; i < size; i++) {
      int old = slotOf[i];
      int slot = insertSlot(oldKeys[old], oldHashes[old]);
      positionOf[slot] = i;
      slotOf[i] = slot;
    }
  }

  /**
   * For tests: the arrays agree with each other (every position's slot leads back to it, every
   * key leads to an element with that key, nothing is held beyond {@code size}, the table is at
   * most half full and every key is reachable from its home slot), and, with {@code order}, the
   * heap order holds.
   */
  @SuppressWarnings("unchecked")
  boolean checkInvariants(boolean order) {
    int keysHeld = 0;
    int mask = keys.length - 1;
    for (int s = 0; s < keys.length; s++) {
      if (keys[s] == null) {
        continue;
      }
      keysHeld++;
      int p = positionOf[s];
      if (p < 0 || p >= size || slotOf[p] != s || hashes[s] != spread(keys[s].hashCode())
          || !keys[s].equals(keyOf(element(p)))) {
        return false;
      }
      for (int i = hashes[s] >>> shift; i != s; i = (i + 1) & mask) {
        if (keys[i] == null) {
          return false; // a probe for this key would stop before reaching it
        }
      }
    }
    for (int p = 0; p < elements.length; p++) {
      if ((p < size) != (elements[p] != null)) {
        return false;
      }
      if (order && p > 0 && p < size
          && comparator.compare(element(p), element((p - 1) / ARITY)) < 0) {
        return false;
      }
    }
    return keysHeld == size && 2 * size <= keys.length;
  }

  @Override
  public String toString() {
    return "KeyedHeap[size=" + size + "]";
  }
}
