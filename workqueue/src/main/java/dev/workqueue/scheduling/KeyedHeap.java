package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A binary min-heap whose elements are also reachable by key: an array of elements plus a map
 * from key to array index, kept in step on every swap.
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
public final class KeyedHeap<K, T> {
  private final Function<? super T, ? extends K> keyFunction;
  private final Comparator<? super T> comparator;
  private final ArrayList<T> elements = new ArrayList<>();
  private final HashMap<K, Integer> indexByKey = new HashMap<>();

  /**
   * An empty heap.
   *
   * @param keyFunction the key of an element; must not return null
   * @param comparator the order; the least element is the head
   * @throws NullPointerException if an argument is null
   */
  public KeyedHeap(Function<? super T, ? extends K> keyFunction, Comparator<? super T> comparator) {
    this.keyFunction = Objects.requireNonNull(keyFunction, "keyFunction must not be null");
    this.comparator = Objects.requireNonNull(comparator, "comparator must not be null");
  }

  /**
   * Adds {@code element}, or replaces the element with the same key and moves it to its new
   * place.
   *
   * @return the element replaced, or null if the key was new
   * @throws NullPointerException if {@code element} or its key is null
   */
  public T addOrUpdate(T element) {
    Objects.requireNonNull(element, "element must not be null");
    K key = keyOf(element);
    Integer index = indexByKey.get(key);
    if (index == null) {
      elements.add(element);
      int last = elements.size() - 1;
      indexByKey.put(key, last);
      siftUp(last);
      return null;
    }
    T previous = elements.set(index, element);
    fix(index);
    return previous;
  }

  /**
   * Removes the element with {@code key}.
   *
   * @return the element removed, or null if none had that key
   * @throws NullPointerException if {@code key} is null
   */
  public T delete(K key) {
    Objects.requireNonNull(key, "key must not be null");
    Integer index = indexByKey.get(key);
    return index == null ? null : removeAt(index);
  }

  /** Removes and returns the head, or null if the heap is empty. */
  public T pop() {
    return elements.isEmpty() ? null : removeAt(0);
  }

  /** The head without removing it, or null if the heap is empty. */
  public T peek() {
    return elements.isEmpty() ? null : elements.get(0);
  }

  /**
   * The element with {@code key}, or null.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public T get(K key) {
    Objects.requireNonNull(key, "key must not be null");
    Integer index = indexByKey.get(key);
    return index == null ? null : elements.get(index);
  }

  /**
   * Whether an element has {@code key}.
   *
   * @throws NullPointerException if {@code key} is null
   */
  public boolean has(K key) {
    Objects.requireNonNull(key, "key must not be null");
    return indexByKey.containsKey(key);
  }

  /** A copy of the elements, in array order (the head first, the rest in no sorted order). */
  public List<T> list() {
    return new ArrayList<>(elements);
  }

  /** The number of elements. */
  public int size() {
    return elements.size();
  }

  /** Whether the heap is empty. */
  public boolean isEmpty() {
    return elements.isEmpty();
  }

  private K keyOf(T element) {
    return Objects.requireNonNull(keyFunction.apply(element), "key of element must not be null");
  }

  private T removeAt(int index) {
    int last = elements.size() - 1;
    T removed = elements.get(index);
    if (index != last) {
      swap(index, last);
    }
    elements.remove(last);
    indexByKey.remove(keyOf(removed));
    if (index != last) {
      fix(index);
    }
    return removed;
  }

  private void fix(int index) {
    if (!siftDown(index)) {
      siftUp(index);
    }
  }

  private void siftUp(int index) {
    while (index > 0) {
      int parent = (index - 1) >>> 1;
      if (comparator.compare(elements.get(index), elements.get(parent)) >= 0) {
        return;
      }
      swap(index, parent);
      index = parent;
    }
  }

  /** @return whether the element moved */
  private boolean siftDown(int index) {
    int start = index;
    int n = elements.size();
    while (true) {
      int left = 2 * index + 1;
      if (left >= n) {
        break;
      }
      int least = left;
      int right = left + 1;
      if (right < n && comparator.compare(elements.get(right), elements.get(left)) < 0) {
        least = right;
      }
      if (comparator.compare(elements.get(least), elements.get(index)) >= 0) {
        break;
      }
      swap(index, least);
      index = least;
    }
    return index != start;
  }

  private void swap(int i, int j) {
    T a = elements.get(i);
    T b = elements.get(j);
    elements.set(i, b);
    elements.set(j, a);
    indexByKey.put(keyOf(b), i);
    indexByKey.put(keyOf(a), j);
  }

  @Override
  public String toString() {
    return "KeyedHeap[size=" + elements.size() + "]";
  }
}
