package dev.workqueue.scheduling;

import dev.workqueue.clock.Clock;
import java.util.Collection;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;

/**
 * A new version of an item, wherever the scheduling queue holds it: in activeQ or backoffQ it
 * takes the version in place (re-sorted); in flight, the attempt's log records the update's
 * events for when it fails; in the unschedulable pool, the update's events may move it (a gated
 * item moves at once: an update is what usually opens a gate); unknown, it is added. Under the
 * queue's main lock; the inner locks only while it looks at activeQ, backoffQ and in flight
 * (see {@link DefaultSchedulingQueue}'s lock order), so user code runs with the main lock only.
 */
final class ItemUpdates<K, T> {
  private final Clock clock;
  private final ActiveQueue<K, T> active;
  private final BackoffQueue<K, T> backoff;
  private final UnschedulablePool<K, T> pool;
  private final Registrations<T> registrations;
  private final QueueMover<K, T> mover;
  private final BiFunction<? super T, ? super T, ? extends Collection<ClusterEvent>> updateEvents;
  /** Under the main lock: the queue's sequence number for a new item. */
  private final LongSupplier nextSequence;

  ItemUpdates(Clock clock, ActiveQueue<K, T> active, BackoffQueue<K, T> backoff,
      UnschedulablePool<K, T> pool, Registrations<T> registrations, QueueMover<K, T> mover,
      BiFunction<? super T, ? super T, ? extends Collection<ClusterEvent>> updateEvents,
      LongSupplier nextSequence) {
    this.clock = clock;
    this.active = active;
    this.backoff = backoff;
    this.pool = pool;
    this.registrations = registrations;
    this.mover = mover;
    this.updateEvents = updateEvents;
    this.nextSequence = nextSequence;
  }

  /**
   * Under the main lock: update or add; {@code oldItem} null means "the version the queue
   * holds".
   */
  void updateLocked(T oldItem, T newItem, K key) {
    long now = clock.nanoTime();
    T inFlightOld;
    mover.lockInner();
    try {
      if (updateQueued(key, newItem, now)) {
        return;
      }
      inFlightOld = updateInFlight(key, oldItem, newItem);
    } finally {
      mover.unlockInner();
    }
    if (inFlightOld != null) {
      // user code runs under the main lock only; if the attempt ends meanwhile, the log
      // ignores events for it
      for (ClusterEvent e : updateEvents.apply(inFlightOld, newItem)) {
        if (registrations.isOfInterest(e)) {
          mover.logForInFlight(e, inFlightOld, newItem, key);
        }
      }
      return;
    }
    QueuedItemInfo<K, T> info = pool.get(key);
    if (info == null) {
      info = new QueuedItemInfo<>(key, newItem, now, nextSequence.getAsLong());
      mover.moveToActive(info, ClusterEvent.ITEM_ADD, now, false);
    } else {
      updatePooled(info, oldItem != null ? oldItem : info.item, newItem, now);
    }
  }

  /** Under both locks: an item in activeQ or backoffQ takes the new version; whether it was. */
  private boolean updateQueued(K key, T newItem, long now) {
    QueuedItemInfo<K, T> info = active.remove(key);
    if (info != null) {
      info.item = newItem; // out of the heap while its sort key changes
      active.add(info, now);
      return true;
    }
    info = backoff.remove(key);
    if (info != null) {
      info.item = newItem;
      backoff.add(info);
      return true;
    }
    return false;
  }

  /**
   * Under both locks: an item being scheduled takes the new version; the version it replaced
   * (for the in-flight log's events), or null if the item is not in flight.
   */
  private T updateInFlight(K key, T oldItem, T newItem) {
    InFlightLog.Attempt<K, T> attempt = active.inFlight().byKey(key);
    if (attempt == null) {
      return null;
    }
    T inFlightOld = oldItem != null ? oldItem : attempt.info.item;
    attempt.info.item = newItem;
    attempt.deleted = false;
    return inFlightOld;
  }

  /**
   * An item in the unschedulable pool takes the new version, and moves if the update's events
   * make it schedulable (a gated item goes at once: an update is what usually opens a gate).
   */
  private void updatePooled(QueuedItemInfo<K, T> info, T old, T newItem, long now) {
    info.item = newItem; // the pool is not sorted: safe in place
    RequeueStrategy strategy = RequeueStrategy.SKIP;
    String label = null;
    if (info.gated) {
      strategy = RequeueStrategy.IMMEDIATELY;
      label = ClusterEvent.ITEM_UPDATE.label();
    } else {
      for (ClusterEvent e : updateEvents.apply(old, newItem)) {
        RequeueStrategy s = registrations.evaluate(info, e, old, newItem);
        if (s.ordinal() > strategy.ordinal()) {
          strategy = s;
          label = e.label();
          if (Registrations.isSettled(info, strategy)) {
            break;
          }
        }
      }
    }
    if (strategy != RequeueStrategy.SKIP) {
      pool.remove(info.key);
      mover.requeue(info, strategy, label, now, true);
    }
  }
}
