package dev.workqueue.scheduling;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Moves items between the parts of a scheduling queue, at once or on the periodic flushes.
 * Every method is called with the queue's main lock held (the flushes take it themselves);
 * see {@link DefaultSchedulingQueue} for the lock order.
 */
final class QueueMover<K, T> {
  static final long BACKOFF_FLUSH_PERIOD = BackoffPolicy.SECOND;
  static final long POOL_FLUSH_PERIOD = 30 * BackoffPolicy.SECOND;

  private final ReentrantLock lock;
  private final Clock clock;
  private final BackoffPolicy policy;
  private final ActiveQueue<K, T> active;
  private final BackoffQueue<K, T> backoff;
  private final UnschedulablePool<K, T> pool;
  private final Registrations<T> registrations;
  private final SchedulingMetrics metrics;
  private final long maxStayInPoolNanos;
  private final boolean popFromBackoff;

  // Guarded by lock.
  private boolean closed;
  private Cancellable backoffTimer;
  private long backoffTimerAt;
  private long backoffTimerGeneration;
  private Cancellable poolTimer;
  private long poolTimerGeneration;

  QueueMover(ReentrantLock mainLock, Clock clock, BackoffPolicy policy, ActiveQueue<K, T> active,
      BackoffQueue<K, T> backoff, UnschedulablePool<K, T> pool, Registrations<T> registrations,
      SchedulingMetrics metrics, long maxStayInPoolNanos, boolean popFromBackoff) {
    this.lock = mainLock;
    this.clock = clock;
    this.policy = policy;
    this.active = active;
    this.backoff = backoff;
    this.pool = pool;
    this.registrations = registrations;
    this.metrics = metrics;
    this.maxStayInPoolNanos = maxStayInPoolNanos;
    this.popFromBackoff = popFromBackoff;
  }

  // ---------------------------------------------------------------- moves (main lock held)

  /** Moves {@code info} (in no part) according to {@code strategy}. */
  void requeue(QueuedItemInfo<K, T> info, RequeueStrategy strategy, String label,
      long now, boolean fromPool) {
    switch (strategy) {
      case SKIP -> toPool(info, label, now, fromPool);
      case AFTER_BACKOFF -> {
        if (policy.isBackingOff(info, now)) {
          toBackoff(info, label, now, fromPool);
        } else {
          moveToActive(info, label, now, fromPool);
        }
      }
      case IMMEDIATELY -> moveToActive(info, label, now, fromPool);
      default -> throw new AssertionError(strategy);
    }
  }

  /** Runs the gates: activeQ if all admit, else the pool marked gated. */
  void moveToActive(QueuedItemInfo<K, T> info, String label, long now, boolean fromPool) {
    if (!gatedIntoPool(info, label, now, fromPool)) {
      addToActive(info, label, now);
    }
  }

  /**
   * Moves an item just taken out of backoffQ to activeQ. With pop-from-backoff the gates ran
   * when it entered backoffQ, where a {@code pop} could have taken it as it was, so they are
   * not run again (kube's {@code moveToActiveQ} with {@code movesFromBackoffQ}); without it
   * they run now.
   */
  void backoffToActive(QueuedItemInfo<K, T> info, String label, long now) {
    if (popFromBackoff) {
      addToActive(info, label, now);
    } else {
      moveToActive(info, label, now, false);
    }
  }

  /**
   * Runs the gates, the one that failed last first. If one holds the item, parks it in the
   * pool marked gated and returns true; else clears the mark and returns false.
   */
  private boolean gatedIntoPool(QueuedItemInfo<K, T> info, String label, long now,
      boolean fromPool) {
    String closedGate = registrations.firstClosedGate(info);
    if (closedGate == null) {
      info.gated = false;
      return false;
    }
    info.gated = true;
    info.lastFailedGate = closedGate;
    toPool(info, label, now, fromPool);
    return true;
  }

  private void addToActive(QueuedItemInfo<K, T> info, String label, long now) {
    active.lock.lock();
    try {
      active.add(info, now);
    } finally {
      active.lock.unlock();
    }
    metrics.incoming(SchedulingMetrics.ACTIVE, label);
  }

  /**
   * backoffQ; with pop-from-backoff, through the gates first (kube's {@code moveToBackoffQ}):
   * a {@code pop} may hand out backoffQ's head, so an item a gate holds must not be there.
   */
  void toBackoff(QueuedItemInfo<K, T> info, String label, long now, boolean fromPool) {
    if (popFromBackoff && gatedIntoPool(info, label, now, fromPool)) {
      return;
    }
    lockInner();
    try {
      backoff.add(info);
      if (popFromBackoff && info.consecutiveErrors == 0) {
        active.wakeOne();
      }
    } finally {
      unlockInner();
    }
    metrics.incoming(SchedulingMetrics.BACKOFF, label);
    scheduleBackoffFlush(now);
  }

  void toPool(QueuedItemInfo<K, T> info, String label, long now, boolean fromPool) {
    pool.add(info);
    if (!fromPool) {
      metrics.incoming(SchedulingMetrics.UNSCHEDULABLE, label);
    }
    schedulePoolFlush(now);
  }

  void logForInFlight(ClusterEvent event, Object oldObj, Object newObj, K target) {
    active.lock.lock();
    try {
      active.logEvent(event, oldObj, newObj, target);
    } finally {
      active.lock.unlock();
    }
  }

  // ---------------------------------------------------------------- periodic flushes

  /** Makes sure a flush runs at the first whole second at which a back-off head is over. */
  private void scheduleBackoffFlush(long now) {
    if (closed) {
      return;
    }
    Long due;
    backoff.lock.lock();
    try {
      due = backoff.nextDue();
    } finally {
      backoff.lock.unlock();
    }
    if (due == null) {
      return;
    }
    long at = policy.ceilToGrid(due - now > 0 ? due : now, BACKOFF_FLUSH_PERIOD);
    if (backoffTimer != null) {
      if (backoffTimerAt - at <= 0) {
        return;
      }
      backoffTimer.cancel();
    }
    long generation = ++backoffTimerGeneration;
    backoffTimerAt = at;
    backoffTimer = clock.schedule(at, () -> flushBackoffCompleted(generation));
  }

  private void flushBackoffCompleted(long generation) {
    lock.lock();
    try {
      if (closed || generation != backoffTimerGeneration) {
        return;
      }
      backoffTimer = null;
      long now = clock.nanoTime();
      List<QueuedItemInfo<K, T>> completed;
      backoff.lock.lock();
      try {
        completed = backoff.popCompleted(now);
      } finally {
        backoff.lock.unlock();
      }
      for (QueuedItemInfo<K, T> info : completed) {
        backoffToActive(info, ClusterEvent.BACKOFF_COMPLETE, now);
      }
      scheduleBackoffFlush(now);
    } finally {
      lock.unlock();
    }
  }

  /** Makes sure the timeout flush runs every 30 s while the pool holds anything. */
  private void schedulePoolFlush(long now) {
    if (closed || poolTimer != null || pool.isEmpty()) {
      return;
    }
    long generation = ++poolTimerGeneration;
    poolTimer = clock.schedule(policy.nextGridLine(now, POOL_FLUSH_PERIOD),
        () -> flushPoolLeftover(generation));
  }

  private void flushPoolLeftover(long generation) {
    lock.lock();
    try {
      if (closed || generation != poolTimerGeneration) {
        return;
      }
      poolTimer = null;
      long now = clock.nanoTime();
      List<QueuedItemInfo<K, T>> expired = new ArrayList<>();
      for (QueuedItemInfo<K, T> info : pool.snapshot()) {
        if (now - info.stayStart() > maxStayInPoolNanos) {
          expired.add(info);
        }
      }
      String label = ClusterEvent.UNSCHEDULABLE_TIMEOUT.label();
      for (QueuedItemInfo<K, T> info : expired) {
        pool.remove(info.key);
        info.lastFlush = now;
        info.flushed = true;
        requeue(info, info.gated ? RequeueStrategy.IMMEDIATELY : RequeueStrategy.AFTER_BACKOFF,
            label, now, true);
      }
      if (!expired.isEmpty()) {
        logForInFlight(ClusterEvent.UNSCHEDULABLE_TIMEOUT, null, null, null);
      }
      schedulePoolFlush(now);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Where a failed item goes, judged by the events logged during its attempt, oldest first;
   * stops at the first event that {@linkplain Registrations#isSettled settles} it (kube's
   * {@code determineSchedulingHintForInFlightPod}).
   */
  RequeueStrategy strategyAfterFailure(QueuedItemInfo<K, T> info,
      InFlightLog.EventsSince<K> events) {
    if (!info.hasRejectors()) {
      return RequeueStrategy.AFTER_BACKOFF;
    }
    RequeueStrategy strategy = events.lost() ? RequeueStrategy.AFTER_BACKOFF : RequeueStrategy.SKIP;
    for (InFlightLog.Logged<K> e : events.events()) {
      if (Registrations.isSettled(info, strategy)) {
        break; // also when lost events already said "after back-off" and nothing is pending
      }
      strategy = strategy.strongest(
          registrations.evaluate(info, e.event(), e.oldObj(), e.newObj()));
    }
    return strategy;
  }

  /** Stops the flushes for good; called once, by close. */
  void close() {
    closed = true;
    backoffTimerGeneration++;
    poolTimerGeneration++;
    if (backoffTimer != null) {
      backoffTimer.cancel();
      backoffTimer = null;
    }
    if (poolTimer != null) {
      poolTimer.cancel();
      poolTimer = null;
    }
  }

  void lockInner() {
    active.lock.lock();
    backoff.lock.lock();
  }

  void unlockInner() {
    backoff.lock.unlock();
    active.lock.unlock();
  }
}
