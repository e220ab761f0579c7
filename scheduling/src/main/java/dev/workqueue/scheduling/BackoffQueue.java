package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * backoffQ: two heaps ordered by back-off expiry (aligned to windows when alignment is on),
 * ties broken by the activeQ order. Items whose last failure was an error (no rejector) live
 * in their own heap that {@code pop} never takes from early: an error retries only once its
 * back-off is over. Guarded by its own lock, taken after the main and activeQ locks.
 */
final class BackoffQueue<K, T> {
  final ReentrantLock lock = new ReentrantLock();
  private final BackoffPolicy policy;
  private final KeyedHeap<K, QueuedItemInfo<K, T>> rejected;
  private final KeyedHeap<K, QueuedItemInfo<K, T>> errors;
  private final SchedulingMetrics metrics;

  BackoffQueue(BackoffPolicy policy, Comparator<? super QueuedItemInfo<K, T>> activeOrder,
      SchedulingMetrics metrics) {
    this.policy = policy;
    Comparator<QueuedItemInfo<K, T>> byExpiry =
        (a, b) -> Long.compare(policy.expiry(a) - policy.expiry(b), 0);
    Comparator<QueuedItemInfo<K, T>> order = byExpiry.thenComparing(activeOrder);
    this.rejected = new KeyedHeap<>(i -> i.key, order);
    this.errors = new KeyedHeap<>(i -> i.key, order);
    this.metrics = metrics;
  }

  BackoffPolicy policy() {
    return policy;
  }

  // ---- the caller holds lock ----

  void add(QueuedItemInfo<K, T> info) {
    policy.expiry(info); // fix the sort key before the item enters a heap
    (info.consecutiveErrors > 0 ? errors : rejected).addOrUpdate(info);
    publish();
  }

  QueuedItemInfo<K, T> get(K key) {
    QueuedItemInfo<K, T> info = rejected.get(key);
    return info != null ? info : errors.get(key);
  }

  QueuedItemInfo<K, T> remove(K key) {
    QueuedItemInfo<K, T> info = rejected.delete(key);
    if (info == null) {
      info = errors.delete(key);
    }
    if (info != null) {
      publish();
    }
    return info;
  }

  /** Takes the head of the rejected heap even if it is still backing off (pop-from-backoff). */
  QueuedItemInfo<K, T> popEarly() {
    lock.lock();
    try {
      QueuedItemInfo<K, T> info = rejected.pop();
      if (info != null) {
        publish();
      }
      return info;
    } finally {
      lock.unlock();
    }
  }

  /** Removes and returns every item of both heaps whose back-off is over at {@code now}. */
  List<QueuedItemInfo<K, T>> popCompleted(long now) {
    List<QueuedItemInfo<K, T>> done = new ArrayList<>();
    drain(rejected, now, done);
    drain(errors, now, done);
    if (!done.isEmpty()) {
      publish();
    }
    return done;
  }

  private void drain(KeyedHeap<K, QueuedItemInfo<K, T>> heap, long now,
      List<QueuedItemInfo<K, T>> out) {
    QueuedItemInfo<K, T> head;
    while ((head = heap.peek()) != null && !policy.isBackingOff(head, now)) {
      out.add(heap.pop());
    }
  }

  /** When the first head's back-off ends, or null if both heaps are empty. */
  Long nextDue() {
    Long due = null;
    for (KeyedHeap<K, QueuedItemInfo<K, T>> heap : List.of(rejected, errors)) {
      QueuedItemInfo<K, T> head = heap.peek();
      if (head != null) {
        long t = policy.dueTime(head);
        if (due == null || t - due < 0) {
          due = t;
        }
      }
    }
    return due;
  }

  int size() {
    return rejected.size() + errors.size();
  }

  boolean isEmpty() {
    return rejected.isEmpty() && errors.isEmpty();
  }

  List<QueuedItemInfo<K, T>> items() {
    List<QueuedItemInfo<K, T>> all = rejected.list();
    all.addAll(errors.list());
    return all;
  }

  Comparator<QueuedItemInfo<K, T>> order() {
    return (a, b) -> Long.compare(policy.expiry(a) - policy.expiry(b), 0);
  }

  private void publish() {
    metrics.backoffSize(size());
  }
}
