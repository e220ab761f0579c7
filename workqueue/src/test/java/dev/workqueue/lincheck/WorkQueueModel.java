package dev.workqueue.lincheck;

import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The sequential meaning of a {@link dev.workqueue.WorkQueue}, written as plainly as possible:
 * SPEC-workqueue §1 in a few lines. A FIFO of queued keys, a dirty set and a processing set,
 * with the invariant that every queued key is dirty and not processing.
 *
 * <ul>
 *   <li>{@code add}: a dirty key is left alone; otherwise it becomes dirty and, unless it is
 *       processing, goes to the tail.
 *   <li>{@code poll}: the head, moved from dirty to processing; null when nothing is queued.
 *   <li>{@code done}: an unpaired done (key not processing) is ignored; otherwise the key
 *       leaves processing and, if it became dirty meanwhile, goes to the tail.
 * </ul>
 *
 * Not thread-safe: Lincheck runs it on one thread, as the specification that the concurrent
 * queue's histories must be explainable by.
 */
final class WorkQueueModel {
  private final ArrayDeque<Integer> fifo = new ArrayDeque<>();
  private final Set<Integer> dirty = new HashSet<>();
  private final Set<Integer> processing = new HashSet<>();

  void add(int key) {
    if (dirty.add(key) && !processing.contains(key)) {
      fifo.addLast(key);
    }
  }

  Integer poll() {
    Integer key = fifo.pollFirst();
    if (key != null) {
      dirty.remove(key);
      processing.add(key);
    }
    return key;
  }

  void done(int key) {
    if (processing.remove(key) && dirty.contains(key)) {
      fifo.addLast(key);
    }
  }

  int size() {
    return fifo.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkQueueModel m
        && fifo.stream().toList().equals(m.fifo.stream().toList())
        && dirty.equals(m.dirty)
        && processing.equals(m.processing);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fifo.stream().toList(), dirty, processing);
  }
}
