package dev.workqueue.lincheck;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntUnaryOperator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The sequential meaning of a {@link dev.workqueue.WorkQueue}, written as plainly as possible:
 * SPEC-workqueue §1 in a few lines. Queued keys, a dirty set and a processing set, with the
 * invariant that every queued key is dirty and not processing.
 *
 * <ul>
 *   <li>{@code add}: a dirty key is left alone; otherwise it becomes dirty and, unless it is
 *       processing, is queued.
 *   <li>{@code poll}: the next queued key, moved from dirty to processing; null when none.
 *   <li>{@code done}: an unpaired done (key not processing) is ignored; otherwise the key
 *       leaves processing and, if it became dirty meanwhile, is queued.
 * </ul>
 *
 * The order: one FIFO line per value of a dimension of the key, and the values with queued
 * keys take turns (the fair order, SPEC §9). With one value for every key, as {@link
 * #fifo()} has, that is client-go's single FIFO.
 *
 * <p>Not thread-safe: Lincheck runs it on one thread, as the specification that the concurrent
 * queue's histories must be explainable by.
 */
final class WorkQueueModel {
  private final IntUnaryOperator dimension;
  private final Map<Integer, ArrayDeque<Integer>> lines = new HashMap<>();
  private final ArrayDeque<Integer> turns = new ArrayDeque<>();
  private final Set<Integer> dirty = new HashSet<>();
  private final Set<Integer> processing = new HashSet<>();

  private WorkQueueModel(IntUnaryOperator dimension) {
    this.dimension = dimension;
  }

  /** client-go's order: one FIFO. */
  static WorkQueueModel fifo() {
    return new WorkQueueModel(key -> 0);
  }

  /** The fair order across the values of {@code dimension}. */
  static WorkQueueModel fair(IntUnaryOperator dimension) {
    return new WorkQueueModel(dimension);
  }

  void add(int key) {
    if (dirty.add(key) && !processing.contains(key)) {
      enqueue(key);
    }
  }

  private void enqueue(int key) {
    int value = dimension.applyAsInt(key);
    ArrayDeque<Integer> line = lines.computeIfAbsent(value, v -> new ArrayDeque<>());
    if (line.isEmpty()) {
      turns.addLast(value);
    }
    line.addLast(key);
  }

  Integer poll() {
    Integer value = turns.pollFirst();
    if (value == null) {
      return null;
    }
    ArrayDeque<Integer> line = lines.get(value);
    Integer key = line.pollFirst();
    if (!line.isEmpty()) {
      turns.addLast(value);
    }
    dirty.remove(key);
    processing.add(key);
    return key;
  }

  void done(int key) {
    if (processing.remove(key) && dirty.contains(key)) {
      enqueue(key);
    }
  }

  int size() {
    return lines.values().stream().mapToInt(ArrayDeque::size).sum();
  }

  /** The queued keys in turn order, each value's line after its value. */
  private List<List<Integer>> queued() {
    return turns.stream().map(v -> List.copyOf(lines.get(v))).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkQueueModel m
        && queued().equals(m.queued())
        && dirty.equals(m.dirty)
        && processing.equals(m.processing);
  }

  @Override
  public int hashCode() {
    return Objects.hash(queued(), dirty, processing);
  }
}
