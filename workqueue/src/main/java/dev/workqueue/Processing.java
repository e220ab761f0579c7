package dev.workqueue;

import dev.workqueue.internal.TimeMath;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's side of the queue: the take that hands an item out, making it processing, and the
 * {@code done} that ends its round. A take releases what is due ({@link DuePromotion}), polls
 * the ready order, and otherwise waits as the leader or a follower ({@link Consumers}); a
 * {@code done} ends the round ({@link Rounds}) and queues the item again if it was added
 * meanwhile, without the lock where nothing it would report needs the lock.
 */
final class Processing<T> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  private final ReentrantLock lock;
  private final ItemMap<T> entries;
  private final ClockReadings clock;
  private final ReadyOrder<T> order;
  private final Rounds<T> rounds;
  private final DuePromotion<T> due;
  private final WaitingRoom<T> waiting;
  private final Consumers consumers;
  private final Shutdown shutdown;
  private final QueueMetrics<T> metrics;
  /** Null unless adds of new items may skip the lock. */
  private final IntakeAdds<T> intakeAdds;
  private final CrowdWindow crowd;
  /** Whether a {@code done} that only ends a round may skip the lock (see {@link #done}). */
  private final boolean doneSkipsLock;
  private final String name;
  /** Null unless the queue is traced. */
  private final Trails<T> trails;
  private boolean warnedUnpairedDone;

  Processing(ReentrantLock lock, ItemMap<T> entries, ClockReadings clock, ReadyOrder<T> order,
      Rounds<T> rounds, DuePromotion<T> due, WaitingRoom<T> waiting, Consumers consumers,
      Shutdown shutdown, QueueMetrics<T> metrics, IntakeAdds<T> intakeAdds, CrowdWindow crowd,
      boolean doneSkipsLock, String name, Trails<T> trails) {
    this.lock = lock;
    this.entries = entries;
    this.clock = clock;
    this.order = order;
    this.rounds = rounds;
    this.due = due;
    this.waiting = waiting;
    this.consumers = consumers;
    this.shutdown = shutdown;
    this.metrics = metrics;
    this.intakeAdds = intakeAdds;
    this.crowd = crowd;
    this.doneSkipsLock = doneSkipsLock;
    this.name = name;
    this.trails = trails;
  }

  // ---- take ----

  /**
   * Takes the next item, waiting up to {@code timeoutNanos} (forever if negative) on the
   * queue's clock. Returns its entry (now processing), {@link QueueEngine#TIMED_OUT} or {@link
   * QueueEngine#SHUT_DOWN}.
   */
  Entry<T> take(long timeoutNanos) throws InterruptedException {
    Entry<T> e;
    lock.lock();
    try {
      e = take(timeoutNanos >= 0, timeoutNanos);
    } finally {
      lock.unlock();
    }
    if (trails != null && e != QueueEngine.TIMED_OUT && e != QueueEngine.SHUT_DOWN) {
      trails.deliver(e.item); // after the lock, on the taking thread
    }
    return e;
  }

  @SuppressWarnings("unchecked")
  private Entry<T> take(boolean timed, long timeoutNanos) throws InterruptedException {
    long now = timed ? clock.now() : clock.nowIfNeeded();
    long deadline = timed ? TimeMath.deadline(now, timeoutNanos) : 0;
    boolean spun = false;
    boolean signalled = false;
    try {
      while (true) {
        int joined = due.mergesByTime() ? 0 : due.promoteBatch(now);
        Entry<T> fromWaiting = due.mergesByTime() ? due.takeDue(now) : null;
        Entry<T> e = fromWaiting != null ? fromWaiting : order.poll(now);
        if (e != null) {
          signalled = wakeOthersLocked(joined);
          handOutLocked(e, now, fromWaiting != null);
          return e;
        }
        if (shutdown.isShuttingDown()) {
          return QueueEngine.SHUT_DOWN;
        }
        if (timed && TimeMath.reached(now, deadline)) {
          return QueueEngine.TIMED_OUT;
        }
        spun = awaitLocked(timed, deadline, spun);
        now = timed ? clock.now() : clock.nowIfNeeded();
      }
    } finally {
      waiting.afterTake(signalled);
    }
  }

  /**
   * After a take found an item: wakes a consumer for each other item it promoted, or for the
   * rest of the line (an add without the lock signals for the first of a batch only). Returns
   * whether it woke one.
   */
  private boolean wakeOthersLocked(int joined) {
    boolean signalled = consumers.wake(joined - 1) > 0;
    if (intakeAdds != null) {
      if (!signalled && consumers.anyWaiting() && order.size() > 0) {
        consumers.signalOne();
        signalled = true;
      }
      crowd.noteTake();
    }
    return signalled;
  }

  /**
   * Waits for an item: as the leader until the head's ready time, after a short spin on the
   * intake (once per take, while nothing waits and one thread takes), or until signalled.
   * Returns whether this take has spun.
   */
  private boolean awaitLocked(boolean timed, long deadline, boolean spun)
      throws InterruptedException {
    if (!consumers.hasLeader() && !waiting.isEmpty()
        && (!timed || waiting.headReadyAt() - deadline < 0)) {
      consumers.awaitAsLeader(waiting.headReadyAt());
    } else if (intakeAdds != null && !spun && !crowd.isCrowded() && waiting.isEmpty()) {
      consumers.spinForAnAdd();
      return true;
    } else {
      consumers.await(timed, deadline);
    }
    return spun;
  }

  /**
   * Hands {@code e} out, just polled from the order or, if {@code fresh}, just made from the
   * waiting room (still {@link Entry#FRESH}): it is processing now.
   */
  private void handOutLocked(Entry<T> e, long now, boolean fresh) {
    if (!fresh) {
      due.mergeDueAdd(e.item, now); // the waiting room holds no other add of a fresh one's item
    }
    rounds.handOut(e, fresh);
    if (trails != null) {
      trails.handOut(e.item, e.readySince); // the adds this round covers, due ones merged above
    }
    waiting.tookAt(now);
  }

  // ---- done ----

  /**
   * Ends the item's round. Without the lock when nothing it would report needs the lock ({@link
   * #doneSkipsLock}) and no delayed add of the item can wait: nothing waits at all, or the entry
   * was made from the waiting room's add of the item and no delayed add of it came since ({@link
   * Entry#mayHaveDelayedAdd}). Such a {@code done} takes effect where it read that. A delayed add
   * of the item that lands before its compare-and-set either only waits, as it would after this
   * {@code done}, or is added at once (a delay of 0 or less) or promoted, which holds a new round
   * on the entry ({@link Entry#tryHold}) and so makes the compare-and-set fail: the {@code done}
   * then takes the lock.
   */
  void done(T item) {
    Entry<T> seen = null;
    if (doneSkipsLock) { // crowded or not: see CrowdWindow
      boolean nothingWaits = !waiting.mayHoldItems();
      seen = entries.get(item);
      if (seen != null && (nothingWaits || !seen.mayHaveDelayedAdd())
          && seen.tryRetire()) { // processing and not added since: it leaves
        entries.remove(seen);
        shutdown.recheckDrain(); // read after the removal: a drain that missed it sees this
        return;
      }
    }
    doneLocked(item, seen);
  }

  /** {@link #done} under the lock; {@code seen} is the item's entry as {@link #done} read it. */
  private void doneLocked(T item, Entry<T> seen) {
    lock.lock();
    try {
      long now = waiting.isEmpty() ? clock.latest() : clock.now();
      due.releaseFor(item, now);
      waiting.noteIfEmpty();
      Entry<T> e = rounds.ending(item, seen);
      if (e == null) {
        warnUnpairedDone(item);
        return;
      }
      if (rounds.end(e)) {
        rounds.requeue(e, clock.orderReadsClock() && waiting.isEmpty() ? clock.now() : now);
        consumers.signal();
      }
      shutdown.signalIfDrained();
      metrics.finished(item);
    } finally {
      lock.unlock();
    }
  }

  private void warnUnpairedDone(T item) {
    if (!warnedUnpairedDone) {
      warnedUnpairedDone = true;
      log.warn("queue {}: done({}) for an item that is not processing; ignored (logged once"
          + " per queue): every done must follow the get that handed the item out",
          name == null ? "(unnamed)" : name, item);
    }
  }
}
