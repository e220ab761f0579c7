package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The read-only questions of {@link SchedulingQueue}: where is a key, how many items each part
 * holds, which items are in flight or in activeQ. Every answer is an immutable snapshot built
 * under the locks it needs, in the order {@link DefaultSchedulingQueue} documents: a question
 * that involves the pool takes the main lock and then both inner locks, since {@code pop}
 * moves items from activeQ or backoffQ to in flight without the main lock; a question about
 * activeQ or the in-flight set alone takes only the activeQ lock, so it never waits for a
 * slow hint.
 */
final class QueueLookups<K, T> {
  private final ReentrantLock mainLock;
  private final QueueMover<K, T> mover;
  private final ActiveQueue<K, T> active;
  private final BackoffQueue<K, T> backoff;
  private final UnschedulablePool<K, T> pool;
  private final Comparator<QueuedItem<K, T>> activeOrder;

  QueueLookups(ReentrantLock mainLock, QueueMover<K, T> mover, ActiveQueue<K, T> active,
      BackoffQueue<K, T> backoff, UnschedulablePool<K, T> pool,
      Comparator<QueuedItem<K, T>> activeOrder) {
    this.mainLock = mainLock;
    this.mover = mover;
    this.active = active;
    this.backoff = backoff;
    this.pool = pool;
    this.activeOrder = activeOrder;
  }

  Optional<ItemStatus<K, T>> lookup(K key) {
    mainLock.lock();
    try {
      mover.lockInner();
      try {
        ItemStatus<K, T> status = queuedStatus(key);
        if (status != null) {
          return Optional.of(status);
        }
      } finally {
        mover.unlockInner();
      }
      QueuedItemInfo<K, T> pooled = pool.get(key);
      if (pooled == null) {
        return Optional.empty();
      }
      return Optional.of(pooled.gated
          ? new ItemStatus.Gated<>(pooled.snapshot(), String.valueOf(pooled.lastFailedGate))
          : new ItemStatus.Unschedulable<>(pooled.snapshot()));
    } finally {
      mainLock.unlock();
    }
  }

  /** activeQ, backoffQ or in flight; the caller holds both inner locks. */
  private ItemStatus<K, T> queuedStatus(K key) {
    QueuedItemInfo<K, T> info = active.get(key);
    if (info != null) {
      return new ItemStatus.Active<>(info.snapshot());
    }
    info = backoff.get(key);
    if (info != null) {
      return new ItemStatus.BackingOff<>(info.snapshot(), backoff.policy().dueTime(info),
          info.consecutiveErrors > 0);
    }
    InFlightLog.Attempt<K, T> attempt = active.inFlight().byKey(key);
    return attempt == null ? null : inFlight(attempt);
  }

  QueueCounts counts() {
    mainLock.lock();
    try {
      mover.lockInner();
      try {
        int gated = pool.gatedCount();
        return new QueueCounts(active.size(), backoff.size(), pool.size() - gated, gated,
            active.inFlight().attemptCount());
      } finally {
        mover.unlockInner();
      }
    } finally {
      mainLock.unlock();
    }
  }

  List<ItemStatus.InFlight<K, T>> inFlight() {
    active.lock.lock();
    try {
      List<ItemStatus.InFlight<K, T>> list = new ArrayList<>(active.inFlight().attemptCount());
      for (InFlightLog.Attempt<K, T> a : active.inFlight().attemptsView().values()) {
        list.add(inFlight(a));
      }
      return List.copyOf(list);
    } finally {
      active.lock.unlock();
    }
  }

  List<ItemSnapshot<K, T>> activeItems() {
    List<ItemSnapshot<K, T>> snapshots = new ArrayList<>();
    active.lock.lock();
    try {
      for (QueuedItemInfo<K, T> info : active.items()) {
        snapshots.add(info.snapshot());
      }
    } finally {
      active.lock.unlock();
    }
    snapshots.sort(activeOrder); // outside the lock: the order may call user code
    return List.copyOf(snapshots);
  }

  private static <K, T> ItemStatus.InFlight<K, T> inFlight(InFlightLog.Attempt<K, T> a) {
    return new ItemStatus.InFlight<>(a.info.snapshot(), a.id, a.deleted);
  }
}
