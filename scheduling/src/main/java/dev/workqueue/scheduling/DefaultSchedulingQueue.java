package dev.workqueue.scheduling;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The scheduling queue; see the package documentation for the moves between its parts.
 *
 * <p><b>Locks</b>, always taken in this order, never the other way round:
 * <ol>
 *   <li>{@link #lock}, the main lock: the pool, the flush timers of {@link QueueMover}, the
 *       sequence, and every decision (hints and gates run under it). Taken by every
 *       operation except {@code pop} and {@code done}.
 *   <li>{@link ActiveQueue#lock}: activeQ, the in-flight attempts and their event log, the
 *       scheduling cycle. {@code pop} and {@code done} take only this one (and the next).
 *   <li>{@link BackoffQueue#lock}: both back-off heaps.
 * </ol>
 * An operation that must know where an item is holds all three while it looks, because
 * {@code pop} moves items from activeQ or backoffQ to in flight without the main lock. The
 * pool and "unknown" cannot change without the main lock, so those answers stay true after
 * the two inner locks are released. User code (hints, gates, update events) runs with the
 * main lock only, so a slow hint never blocks {@code pop}.
 */
final class DefaultSchedulingQueue<K, T> implements SchedulingQueue<K, T> {
  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  static final String SCHEDULE_ATTEMPT_FAILURE = "ScheduleAttemptFailure";

  private final ReentrantLock lock = new ReentrantLock();
  private final Clock clock;
  private final Function<? super T, ? extends K> keyFunction;
  private final Comparator<QueuedItem<K, T>> activeOrder;
  private final ActiveQueue<K, T> active;
  private final BackoffQueue<K, T> backoff;
  private final UnschedulablePool<K, T> pool;
  private final Registrations<T> registrations;
  private final QueueMover<K, T> mover;
  private final QueueLookups<K, T> lookups;
  private final ItemUpdates<K, T> updates;

  // Guarded by lock.
  private long sequence;
  private boolean closed;
  private volatile boolean warnedUnpairedDone;

  DefaultSchedulingQueue(SchedulingQueueBuilder<K, T> b) {
    this.clock = b.clock;
    this.keyFunction = b.keyFunction;
    this.activeOrder = b.activeOrder();
    SchedulingMetrics metrics = SchedulingMetrics.create(b.name, b.metricsProvider);
    BackoffPolicy policy = new BackoffPolicy(b.initialBackoffNanos, b.maxBackoffNanos,
        b.alignBackoffToWindow, BackoffPolicy.SECOND, clock.nanoTime());
    this.backoff = new BackoffQueue<>(policy, activeOrder, metrics);
    this.active = new ActiveQueue<>(activeOrder, b.maxInFlightEvents, metrics,
        b.popFromBackoff ? backoff : null);
    this.registrations = new Registrations<>(b.hints, b.gates, b.numericActionMatching);
    this.pool = new UnschedulablePool<>(metrics, registrations, b.indexPoolByEvent);
    this.mover = new QueueMover<>(lock, clock, policy, active, backoff, pool, registrations,
        metrics, b.maxStayInPoolNanos, b.popFromBackoff);
    this.updates = new ItemUpdates<>(clock, active, backoff, pool, registrations, mover,
        b.updateEvents, this::nextSequence);
    this.lookups = new QueueLookups<>(lock, mover, active, backoff, pool, activeOrder);
  }

  // ---------------------------------------------------------------- operations

  @Override
  public void add(T item) {
    Checks.nonNull(item, "item");
    K key = keyOf(item);
    lock.lock();
    try {
      if (closed) {
        return;
      }
      updates.updateLocked(null, item, key);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<PoppedItem<K, T>> pop() throws InterruptedException {
    return active.pop();
  }

  @Override
  public void requeueFailed(PoppedItem<K, T> popped, Rejectors rejectors) {
    Checks.nonNull(popped, "popped");
    Checks.nonNull(rejectors, "rejectors");
    lock.lock();
    try {
      InFlightLog.Attempt<K, T> attempt;
      InFlightLog.EventsSince<K> events;
      mover.lockInner();
      try {
        attempt = active.inFlight().byId(popped.id());
        if (attempt == null) {
          throw new IllegalStateException("attempt " + popped.id() + " of " + popped.key()
              + " is not in flight: it already ended by done or requeueFailed");
        }
        K key = attempt.info.key;
        if (active.get(key) != null || backoff.get(key) != null || pool.get(key) != null) {
          throw new IllegalStateException(key + " is already queued");
        }
        events = active.inFlight().eventsFor(attempt);
        active.finish(attempt.id);
      } finally {
        mover.unlockInner();
      }
      if (closed || attempt.deleted) {
        return;
      }
      long now = clock.nanoTime();
      QueuedItemInfo<K, T> info = attempt.info;
      info.recordFailure(rejectors, now, nextSequence());
      mover.requeue(info, mover.strategyAfterFailure(info, events), SCHEDULE_ATTEMPT_FAILURE,
          now, false);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onEvent(ClusterEvent event, Object oldObj, Object newObj) {
    onEvent(event, oldObj, newObj, item -> true);
  }

  @Override
  public void onEvent(ClusterEvent event, Object oldObj, Object newObj,
      Predicate<? super T> preCheck) {
    Checks.nonNull(event, "event");
    Checks.nonNull(preCheck, "preCheck");
    lock.lock();
    try {
      if (closed || !registrations.isOfInterest(event)) {
        return;
      }
      long now = clock.nanoTime();
      for (QueuedItemInfo<K, T> info : pool.candidatesFor(event)) {
        if (!preCheck.test(info.item)) {
          continue;
        }
        RequeueStrategy strategy;
        if (info.gated) {
          strategy = registrations.mayOpenGate(info, event)
              ? RequeueStrategy.IMMEDIATELY : RequeueStrategy.SKIP;
        } else {
          strategy = registrations.evaluate(info, event, oldObj, newObj);
        }
        if (strategy != RequeueStrategy.SKIP) {
          pool.remove(info.key);
          mover.requeue(info, strategy, event.label(), now, true);
        }
      }
      mover.logForInFlight(event, oldObj, newObj, null);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void update(T oldItem, T newItem) {
    Checks.nonNull(oldItem, "oldItem");
    Checks.nonNull(newItem, "newItem");
    K key = keyOf(newItem);
    if (!key.equals(keyOf(oldItem))) {
      throw new IllegalArgumentException(
          "oldItem and newItem must have the same key, were " + keyOf(oldItem) + " and " + key);
    }
    lock.lock();
    try {
      if (!closed) {
        updates.updateLocked(oldItem, newItem, key);
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean delete(T item) {
    Checks.nonNull(item, "item");
    K key = keyOf(item);
    lock.lock();
    try {
      if (closed) {
        return false;
      }
      mover.lockInner();
      try {
        if (active.remove(key) != null || backoff.remove(key) != null) {
          return true;
        }
        InFlightLog.Attempt<K, T> attempt = active.inFlight().byKey(key);
        if (attempt != null) {
          attempt.deleted = true;
          return true;
        }
      } finally {
        mover.unlockInner();
      }
      return pool.remove(key) != null;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void activate(Collection<? extends T> items) {
    Checks.nonNull(items, "items");
    List<K> keys = new ArrayList<>(items.size());
    for (T item : items) {
      keys.add(keyOf(Checks.nonNull(item, "item")));
    }
    String label = ClusterEvent.FORCE_ACTIVATE.label();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      long now = clock.nanoTime();
      for (K key : keys) {
        QueuedItemInfo<K, T> fromBackoff;
        mover.lockInner();
        try {
          fromBackoff = backoff.remove(key);
          if (fromBackoff == null && active.inFlight().byKey(key) != null) {
            active.logEvent(ClusterEvent.FORCE_ACTIVATE, null, null, key);
          }
        } finally {
          mover.unlockInner();
        }
        if (fromBackoff != null) {
          mover.backoffToActive(fromBackoff, label, now);
        } else {
          QueuedItemInfo<K, T> pooled = pool.remove(key);
          if (pooled != null) {
            mover.moveToActive(pooled, label, now, true);
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean done(long id) {
    InFlightLog.Attempt<K, T> attempt;
    active.lock.lock();
    try {
      attempt = active.finish(id);
    } finally {
      active.lock.unlock();
    }
    if (attempt == null && !warnedUnpairedDone) {
      warnedUnpairedDone = true;
      log.warn("done({}) for an attempt that is not in flight; ignored (logged once per queue)",
          id);
    }
    return attempt != null;
  }

  @Override
  public Pending<T> pending() {
    lock.lock();
    try {
      List<QueuedItemInfo<K, T>> activeItems;
      List<QueuedItemInfo<K, T>> backoffItems;
      mover.lockInner();
      try {
        activeItems = active.items();
        backoffItems = backoff.items();
      } finally {
        mover.unlockInner();
      }
      activeItems.sort(activeOrder);
      backoffItems.sort(backoff.order().thenComparing(activeOrder));
      List<T> items = new ArrayList<>();
      activeItems.forEach(i -> items.add(i.item));
      backoffItems.forEach(i -> items.add(i.item));
      pool.snapshot().forEach(i -> items.add(i.item));
      String summary = "activeQ:" + activeItems.size() + "; backoffQ:" + backoffItems.size()
          + "; unschedulable:" + pool.size();
      return new Pending<>(items, summary);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<ItemStatus<K, T>> lookup(K key) {
    Checks.nonNull(key, "key");
    return lookups.lookup(key);
  }

  @Override
  public QueueCounts counts() {
    return lookups.counts();
  }

  @Override
  public List<ItemStatus.InFlight<K, T>> inFlight() {
    return lookups.inFlight();
  }

  @Override
  public List<ItemSnapshot<K, T>> activeItems() {
    return lookups.activeItems();
  }

  @Override
  public long schedulingCycle() {
    active.lock.lock();
    try {
      return active.cycle();
    } finally {
      active.lock.unlock();
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      mover.close();
      active.lock.lock();
      try {
        active.close();
      } finally {
        active.lock.unlock();
      }
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------- helpers

  /** Under the main lock: numbers a new item or a failed attempt, in order. */
  private long nextSequence() {
    return ++sequence;
  }

  private K keyOf(T item) {
    return Objects.requireNonNull(keyFunction.apply(item), "keyFunction returned null");
  }

  /** Test hook: the in-flight event log's size. */
  int inFlightEventCount() {
    active.lock.lock();
    try {
      return active.inFlight().eventCount();
    } finally {
      active.lock.unlock();
    }
  }
}
