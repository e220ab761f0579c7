package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.SlotIndex;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A 4-ary min-heap whose elements are also reachable by key, in arrays and no per-element
 * object (except for keys that overflow the index, see below): by heap position, the element,
 * its key, and its key's hash packed with its link in the index, a {@link SlotIndex}.
 * Comparisons read the elements straight from the heap's array, as {@code PriorityQueue}'s
 * do; a move writes the three arrays and the index slot, without reading it. Sifting never
 * hashes a key or boxes an index. Keys that share one hash cost O(log n) calls of
 * {@code equals}/{@code compareTo} per operation if they are Comparable (the guarantee of the
 * JDK's {@code HashMap}, see {@link SlotIndex}), and stay correct, only slower, if not.
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
  private static final long[] EMPTY_LONGS = new long[0];
  private static final int MIN_TABLE = 32;
  private static final long LINK_MASK = 0xFFFF_FFFFL;
  /**
   * Children per node: a 4-ary heap is half as deep as a binary one, so a pop moves half as many
   * elements (each move also writes the index), and a node's children are usually in one
   * cache line.
   */
  private static final int ARITY = 4;

  private final Function<? super T, ? extends K> keyFunction;
  private final Comparator<? super T> comparator;

  // ---- by heap position ----
  private Object[] elements = EMPTY;
  private Object[] keys = EMPTY;
  /** Each key's hash ({@link SlotIndex#hash}, high half) and its link in the index (low half). */
  private long[] meta = EMPTY_LONGS;
  private int size;

  /** From key to heap position; reads the arrays above through {@link Positions}. */
  private final SlotIndex index = new SlotIndex(new Positions(), MIN_TABLE);

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
    int hash = index.hash(key);
    int pos = index.find(key, hash);
    if (pos >= 0) {
      T previous = element(pos);
      fix(pos, element, keys[pos], meta[pos]); // keeps the key it was added with
      return previous;
    }
    if (size == elements.length) {
      grow();
    }
    index.ensureRoom(size + 1, size);
    int link = index.add(key, hash, size);
    siftUp(size++, element, key, (long) hash << 32 | (link & LINK_MASK));
    return null;
  }

  /**
   * Removes the element with {@code key}.
   *
   * @param key the key of the element to remove, not null
   * @return the removed element, or null if there was none
   */
  public T delete(K key) {
    int pos = find(key);
    return pos < 0 ? null : removeAt(pos);
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
    int pos = find(key);
    return pos < 0 ? null : element(pos);
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

  private int find(K key) {
    Checks.nonNull(key, "key");
    return index.find(key, index.hash(key));
  }

  private void grow() {
    if (size >= SlotIndex.MAX_POSITIONS) {
      throw new IllegalStateException("a keyed heap holds at most " + SlotIndex.MAX_POSITIONS
          + " elements");
    }
    int length = Math.min(SlotIndex.MAX_POSITIONS, Math.max(16, size + (size >> 1)));
    Object[] es = Arrays.copyOf(elements, length); // all allocated before any is kept
    Object[] ks = Arrays.copyOf(keys, length);
    long[] ms = Arrays.copyOf(meta, length);
    elements = es;
    keys = ks;
    meta = ms;
  }

  /** Puts {@code element} (its key and meta with it) at {@code i}, and tells the index. */
  private void place(int i, Object element, Object key, long m) {
    elements[i] = element;
    keys[i] = key;
    meta[i] = m;
    index.move((int) m, i);
  }

  private T removeAt(int i) {
    T removed = element(i);
    index.remove((int) meta[i]); // may relink others, the last among them: read it after
    int last = --size;
    Object moved = elements[last];
    Object movedKey = keys[last];
    long movedMeta = meta[last];
    elements[last] = null;
    keys[last] = null;
    if (i != last) {
      fix(i, moved, movedKey, movedMeta);
    }
    index.shrinkIfSparse(size);
    return removed;
  }

  /** Puts {@code element}, which belongs at {@code i}, in its place. */
  private void fix(int i, Object element, Object key, long m) {
    if (siftDown(i, element, key, m) == i) {
      siftUp(i, element, key, m);
    }
  }

  /**
   * Moves {@code element}, which belongs at {@code i}, up: parents move into the hole. If the
   * comparator throws, the element lands in the hole it had reached: every key still leads to
   * its own element, though the order around that place may be wrong.
   */
  @SuppressWarnings("unchecked")
  private void siftUp(int i, Object element, Object key, long m) {
    Object[] es = elements;
    try {
      while (i > 0) {
        int parent = (i - 1) / ARITY;
        Object p = es[parent];
        if (comparator.compare((T) element, (T) p) >= 0) {
          break;
        }
        place(i, p, keys[parent], meta[parent]);
        i = parent;
      }
    } finally {
      place(i, element, key, m);
    }
  }

  /**
   * Moves {@code element}, which belongs at {@code i}, down: the least child moves into the
   * hole while it is less. Returns where the element ends. A throwing comparator leaves it in
   * the hole it had reached, as {@link #siftUp} does.
   */
  @SuppressWarnings("unchecked")
  private int siftDown(int i, Object element, Object key, long m) {
    Object[] es = elements;
    int n = size;
    try {
      while (true) {
        int first = i * ARITY + 1;
        if (first >= n) {
          break;
        }
        int child = first;
        Object c = es[first];
        for (int k = first + 1, end = Math.min(first + ARITY, n); k < end; k++) {
          if (comparator.compare((T) es[k], (T) c) < 0) {
            child = k;
            c = es[k];
          }
        }
        if (comparator.compare((T) c, (T) element) >= 0) {
          break;
        }
        place(i, c, keys[child], meta[child]);
        i = child;
      }
    } finally {
      place(i, element, key, m);
    }
    return i;
  }

  /** What the index reads and writes by position: the key, its hash and its link. */
  private final class Positions implements SlotIndex.Owner {
    @Override
    public Object itemAt(int pos) {
      return keys[pos];
    }

    @Override
    public int hashAt(int pos) {
      return (int) (meta[pos] >>> 32);
    }

    @Override
    public int linkAt(int pos) {
      return (int) meta[pos];
    }

    @Override
    public void relink(int pos, int link) {
      meta[pos] = (meta[pos] & ~LINK_MASK) | (link & LINK_MASK);
    }
  }

  /**
   * For tests: the arrays and the index agree with each other (every position's key leads back
   * to it, every key is its element's, with its hash, nothing is held beyond {@code size}), and,
   * with {@code order}, the heap order holds.
   */
  boolean checkInvariants(boolean order) {
    for (int p = 0; p < elements.length; p++) {
      if ((p < size) != (elements[p] != null) || (p < size) != (keys[p] != null)) {
        return false;
      }
      if (p < size && ((int) (meta[p] >>> 32) != index.hash(keys[p])
          || !keys[p].equals(keyOf(element(p))))) {
        return false;
      }
      if (order && p > 0 && p < size
          && comparator.compare(element(p), element((p - 1) / ARITY)) < 0) {
        return false;
      }
    }
    return index.check(size);
  }

  @Override
  public String toString() {
    return "KeyedHeap[size=" + size + "]";
  }
}
