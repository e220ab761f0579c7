package dev.workqueue.scheduling;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * activeQ with everything {@code pop} touches: the heap, the in-flight attempts and their
 * event log, the scheduling cycle. It has its own lock so that {@code pop} never waits for
 * the main lock (which is held while hints run). Lock order: main, then this, then backoffQ.
 */
final class ActiveQueue<K, T> {
  final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final KeyedHeap<K, QueuedItemInfo<K, T>> heap;
  private final InFlightLog<K, T> inFlight;
  private final SchedulingMetrics metrics;
  private final BackoffQueue<K, T> popFromBackoff;
  private long cycle;
  private boolean closed;
  private int waiters;

  /** @param popFromBackoff the backoffQ to take from when this is empty, or null */
  ActiveQueue(Comparator<? super QueuedItemInfo<K, T>> order, int maxInFlightEvents,
      SchedulingMetrics metrics, BackoffQueue<K, T> popFromBackoff) {
    this.heap = new KeyedHeap<>(i -> i.key, order);
    this.inFlight = new InFlightLog<>(maxInFlightEvents);
    this.metrics = metrics;
    this.popFromBackoff = popFromBackoff;
  }

  /**
   * Takes the head, waiting while there is none; with pop-from-backoff, takes the head of the
   * rejected back-off heap when activeQ is empty. Empty once closed.
   */
  Optional<PoppedItem<K, T>> pop() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      QueuedItemInfo<K, T> info;
      while (true) {
        if (closed) {
          return Optional.empty();
        }
        info = heap.pop();
        if (info != null) {
          metrics.activeSize(heap.size());
          break;
        }
        if (popFromBackoff != null && (info = popFromBackoff.popEarly()) != null) {
          metrics.incoming(SchedulingMetrics.ACTIVE, ClusterEvent.POP_FROM_BACKOFF);
          break;
        }
        waiters++;
        try {
          notEmpty.await();
        } finally {
          waiters--;
        }
      }
      info.attempts = QueuedItemInfo.saturatedIncrement(info.attempts);
      cycle++;
      inFlight.start(info, cycle);
      return Optional.of(
          new PoppedItem<>(info.item, info.key, cycle, info.attempts, info.lastRejectors));
    } finally {
      lock.unlock();
    }
  }

  // ---- everything below: the caller holds lock ----

  void add(QueuedItemInfo<K, T> info, long now) {
    if (!info.hasInitialAttempt) {
      info.hasInitialAttempt = true;
      info.initialAttemptTime = now;
    }
    heap.addOrUpdate(info);
    metrics.activeSize(heap.size());
    wakeOne();
  }

  /** Wakes one waiting {@code pop}, if any waits. */
  void wakeOne() {
    if (waiters > 0) {
      notEmpty.signal();
    }
  }

  QueuedItemInfo<K, T> get(K key) {
    return heap.get(key);
  }

  QueuedItemInfo<K, T> remove(K key) {
    QueuedItemInfo<K, T> info = heap.delete(key);
    if (info != null) {
      metrics.activeSize(heap.size());
    }
    return info;
  }

  int size() {
    return heap.size();
  }

  List<QueuedItemInfo<K, T>> items() {
    return heap.list();
  }

  InFlightLog<K, T> inFlight() {
    return inFlight;
  }

  void logEvent(ClusterEvent event, Object oldObj, Object newObj, K target) {
    inFlight.log(event, oldObj, newObj, target);
    metrics.inFlightEvents(inFlight.eventCount());
  }

  InFlightLog.Attempt<K, T> finish(long id) {
    InFlightLog.Attempt<K, T> a = inFlight.finish(id);
    metrics.inFlightEvents(inFlight.eventCount());
    return a;
  }

  long cycle() {
    return cycle;
  }

  boolean isClosed() {
    return closed;
  }

  void close() {
    closed = true;
    notEmpty.signalAll();
  }
}
