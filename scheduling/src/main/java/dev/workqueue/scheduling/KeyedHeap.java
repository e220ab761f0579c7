package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A binary min-heap whose elements are also reachable by key: an array of nodes plus an
 * open-addressing table of the same nodes by key, where each node records its own array
 * position and its key's hash. Sifting moves nodes and rewrites their positions; it never
 * hashes a key or boxes an index. A node is the only allocation per added key (the table holds
 * the nodes themselves, not map entries pointing at them).
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
 *
 * <p>Not thread-safe: the scheduling queue guards each heap with its own lock.
 *
 * @param <K> the key type, compared with {@code equals}/{@code hashCode}
 * @param <T> the element type
 */
final class KeyedHeap<K, T> {
  private static final Object[] EMPTY = new Object[0];

  /** An element with its key and its current position, so sifting never hashes. */
  private static final class Node<K, T> {
    final K key;
    final int hash;
    T element;
    int index;

    Node(K key, int hash, T element, int index) {
      this.key = key;
      this.hash = hash;
      this.element = element;
      this.index = index;
    }
  }

  private static final int MIN_TABLE = 16;

  private final Function<? super T, ? extends K> keyFunction;
  private final Comparator<? super T> comparator;
  private Object[] heap = EMPTY;
  private int size;
  /**
   * The nodes by key, linear probing from the top bits of the spread hash; at most half full,
   * so a probe for an absent key usually ends at its first slot. Deletion shifts the rest of
   * the probe run back (no tombstones).
   */
  private Object[] table = new Object[MIN_TABLE];
  /**
   * The spread hash of the node in each slot of {@link #table}, so probing and deletion compare
   * hashes without dereferencing nodes: with many items the nodes are cache misses.
   */
  private int[] slotHashes = new int[MIN_TABLE];
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
    Node<K, T> node = find(key, hash);
    if (node == null) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, Math.max(16, size + (size >> 1)));
      }
      if (2 * (size + 1) > table.length) {
        rehash(table.length * 2);
      }
      node = new Node<>(key, hash, element, size);
      insertSlot(node);
      heap[size++] = node;
      siftUp(node.index, node);
      return null;
    }
    T previous = node.element;
    node.element = element;
    fix(node);
    return previous;
  }

  /**
   * Removes the element with {@code key}.
   *
   * @param key the key of the element to remove, not null
   * @return the removed element, or null if there was none
   */
  public T delete(K key) {
    Node<K, T> node = find(key);
    return node == null ? null : removeAt(node.index);
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
    return size == 0 ? null : node(0).element;
  }

  /**
   * The element with {@code key}.
   *
   * @param key the key to look up, not null
   * @return the element held under {@code key}, or null if there is none
   */
  public T get(K key) {
    Node<K, T> node = find(key);
    return node == null ? null : node.element;
  }

  /**
   * Whether an element with {@code key} is held.
   *
   * @param key the key to look up, not null
   * @return true if the heap holds an element under {@code key}
   */
  public boolean has(K key) {
    return find(key) != null;
  }

  /**
   * The elements in heap (array) order: the head first, the rest in no particular order.
   *
   * @return a new modifiable list of every element
   */
  public List<T> list() {
    List<T> out = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      out.add(node(i).element);
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
  private Node<K, T> node(int i) {
    return (Node<K, T>) heap[i];
  }

  private T removeAt(int index) {
    Node<K, T> removed = node(index);
    deleteSlot(removed);
    int last = --size;
    Node<K, T> moved = node(last);
    heap[last] = null;
    if (index != last) {
      moved.index = index;
      heap[index] = moved;
      fix(moved);
    }
    if (table.length > MIN_TABLE && 8 * size < table.length) {
      rehash(table.length / 2); // an eighth full: halve, to a quarter
    }
    return removed.element;
  }

  private void fix(Node<K, T> node) {
    int index = node.index;
    siftDown(index, node);
    if (node.index == index) {
      siftUp(index, node);
    }
  }

  /** Moves {@code node}, which belongs at {@code index}, up: parents move into the hole. */
  private void siftUp(int index, Node<K, T> node) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      Node<K, T> p = node(parent);
      if (comparator.compare(node.element, p.element) >= 0) {
        break;
      }
      heap[index] = p;
      p.index = index;
      index = parent;
    }
    heap[index] = node;
    node.index = index;
  }

  /** Moves {@code node}, which belongs at {@code index}, down: children move into the hole. */
  private void siftDown(int index, Node<K, T> node) {
    int half = size >>> 1;
    while (index < half) {
      int child = 2 * index + 1;
      Node<K, T> c = node(child);
      int right = child + 1;
      if (right < size && comparator.compare(node(right).element, c.element) < 0) {
        child = right;
        c = node(child);
      }
      if (comparator.compare(c.element, node.element) >= 0) {
        break;
      }
      heap[index] = c;
      c.index = index;
      index = child;
    }
    heap[index] = node;
    node.index = index;
  }

  // ---- the table of nodes by key ----

  /** Fibonacci hashing: the multiply carries every bit of {@code h} into the top bits. */
  private static int spread(int h) {
    return h * 0x9E3779B9;
  }

  private Node<K, T> find(K key) {
    Checks.nonNull(key, "key");
    return find(key, spread(key.hashCode()));
  }

  @SuppressWarnings("unchecked")
  private Node<K, T> find(Object key, int hash) {
    Object[] t = table;
    int[] h = slotHashes;
    int mask = t.length - 1;
    for (int i = hash >>> shift; ; i = (i + 1) & mask) {
      Object n = t[i];
      if (n == null) {
        return null;
      }
      if (h[i] == hash && key.equals(((Node<K, T>) n).key)) {
        return (Node<K, T>) n;
      }
    }
  }

  private void insertSlot(Node<K, T> node) {
    Object[] t = table;
    int mask = t.length - 1;
    int i = node.hash >>> shift;
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = node;
    slotHashes[i] = node.hash;
  }

  /** Removes {@code node} and shifts later entries of its probe run back into the gap. */
  private void deleteSlot(Node<K, T> node) {
    Object[] t = table;
    int[] h = slotHashes;
    int mask = t.length - 1;
    int gap = node.hash >>> shift;
    while (t[gap] != node) {
      gap = (gap + 1) & mask;
    }
    for (int i = (gap + 1) & mask; t[i] != null; i = (i + 1) & mask) {
      int home = h[i] >>> shift;
      // The entry at i may fill the gap if its home is not in the cyclic range (gap, i].
      if (((i - home) & mask) >= ((i - gap) & mask)) {
        t[gap] = t[i];
        h[gap] = h[i];
        gap = i;
      }
    }
    t[gap] = null;
  }

  @SuppressWarnings("unchecked")
  private void rehash(int length) {
    table = new Object[length];
    slotHashes = new int[length];
    shift = 32 - Integer.numberOfTrailingZeros(length);
    for (int i = 0; i < size; i++) {
      insertSlot((Node<K, T>) heap[i]);
    }
  }

  @Override
  public String toString() {
    return "KeyedHeap[size=" + size + "]";
  }
}
