package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one engine under every queue kind: work, delaying, rate-limiting, priority and fair
 * queues are thin views of it that differ only in the parts the builder picks.
 *
 * <h2>State and parts</h2>
 *
 * One lock guards it all, except the steps named below. Each part is one concept:
 *
 * <ul>
 *   <li>{@link ItemMap}: one {@link Entry} per item that is dirty or processing (client-go's two
 *       sets in one map), on the JDK's {@code ConcurrentHashMap};
 *   <li>{@link Rounds}: an item's rounds, the state machine of its entry (ready, handed out, held
 *       until done);
 *   <li>{@link ReadyOrder}: the READY entries, in the order they are handed out: first-in
 *       first-out ({@link FifoOrder}), by priority with aging ({@link PriorityOrder}), or
 *       round-robin across groups ({@link FairOrder});
 *   <li>{@link AddRules}: how an add meets what the queue holds for its item (client-go's rules,
 *       with or without supersede, or controller-runtime's);
 *   <li>{@link WaitingRoom}: delayed adds while they wait ({@link DelayHeap}), independent of the
 *       dirty and processing state as in client-go, and the wake-ups a change of it needs;
 *   <li>{@link DuePromotion}: the release of due items, by the consumers and by every operation
 *       on an item, in bounded batches;
 *   <li>{@link Consumers}: waiting consumers, the leader that waits for the head's ready time, and
 *       every wake-up;
 *   <li>{@link Processing}: a worker's side, the take that hands an item out and the {@code done}
 *       that ends its round;
 *   <li>{@link ClockReadings}: a fresh clock reading where time matters, the latest where it does
 *       not, and the hold of the lock with nothing due at one reading;
 *   <li>{@link IntakeAdds} and {@link CrowdWindow}: the add of a new item without the lock, on a
 *       FIFO queue without metrics or supersede, while one thread takes;
 *   <li>{@link Shutdown}: the flag, the drain and its wait.
 * </ul>
 *
 * <h2>Steps without the lock</h2>
 *
 * Three steps change only an entry's stamp ({@link Entry}), the map and the FIFO's intake:
 *
 * <ul>
 *   <li>the merge of an add into a round that is already pending ({@link Entry#tryMerge}), which
 *       publishes through the stamp, so the {@code java.util.concurrent} promise holds for every
 *       add, merged or not ({@link AddRules#mergesWithoutLock});
 *   <li>the add of a new item while nothing waits and one thread takes ({@link IntakeAdds});
 *   <li>on a queue without metrics or fair order, while no delayed add of the item can wait
 *       (nothing waits, or the item was handed out from the waiting room and no delayed add of
 *       it came since: {@link Entry#mayHaveDelayedAdd}), the {@code done} that ends a round
 *       ({@link Entry#tryRetire}, in {@link Processing#done}), which excludes an add that would
 *       hold a new round on the same entry ({@link Entry#tryHold}).
 * </ul>
 *
 * <h2>User code runs after the change</h2>
 *
 * Metrics hooks and the clock's {@code schedule} run after the state change they report is
 * complete, through {@link HookGuard}, which logs, counts and swallows what they throw. The
 * caller's {@code equals}/{@code hashCode}/{@code compareTo} and the fair order's dimension run
 * before anything changes, so a throw fails the call that brought the item and harms no other.
 */
final class QueueEngine<T> {
  /** {@link #take}'s answer when the timeout passed. */
  @SuppressWarnings("rawtypes")
  static final Entry TIMED_OUT = new Entry<>("(timed out)", 0);
  /** {@link #take}'s answer when the queue is shut down and has nothing left to hand out. */
  @SuppressWarnings("rawtypes")
  static final Entry SHUT_DOWN = new Entry<>("(shut down)", 0);

  /**
   * Allocated right after the engine and before the lock, so that no object the consumers write
   * on every take (the lock's state, the order's line) can share a cache line with the fields
   * producers read on every add; where it falls otherwise changes from one JVM to the next.
   */
  @SuppressWarnings("unused")
  private final long[] padding = new long[16];
  private final ReentrantLock lock = new ReentrantLock();
  private final ItemMap<T> entries = new ItemMap<>();
  private final Clock clock;
  private final HookGuard guard;
  private final QueueMetrics<T> metrics;
  /** Whether the metrics are live: they count under the lock, and need a clock wake-up. */
  private final boolean backstop;
  private final ReadyOrder<T> order;
  private final FairOrder<T> fair; // the order, if fair: delayed adds check the dimension early
  private final AddRules rules;
  /** Whether a {@code done} that only ends a round may skip the lock (see the class comment). */
  private final boolean doneSkipsLock;
  private final WaitingRoom<T> waiting;
  private final Consumers consumers;
  private final DuePromotion<T> due;
  private final Shutdown shutdown;
  /** Null unless adds of new items may skip the lock. */
  private final IntakeAdds<T> intakeAdds;
  private final CrowdWindow crowd;
  private final Rounds<T> rounds;
  private final ClockReadings readings;
  private final Processing<T> processing;
  /** Null unless the queue has a tracer: then every add takes the lock ({@link Trails}). */
  private final Trails<T> trails;

  /**
   * @param priority controller-runtime's rules and order (else FIFO, or fair if the builder
   *     names a dimension)
   */
  QueueEngine(WorkQueueBuilder<T> b, boolean priority) {
    this.clock = b.clock;
    this.guard = new HookGuard(b.name);
    this.order = priority ? new PriorityOrder<>(b.agingThresholdNanos)
        : b.fairDimension != null ? new FairOrder<>(b.fairDimension) : new FifoOrder<>();
    this.fair = order instanceof FairOrder<T> f ? f : null;
    this.rules = AddRules.of(priority, b.addSupersedesDelayed);
    QueueMetrics<T> m = b.newMetrics(lock);
    this.backstop = !(m instanceof QueueMetrics.Noop);
    this.metrics = backstop
        ? new GuardedMetrics<>(m, priority ? b.newPriorityDepthMetric() : null, guard) : m;
    this.doneSkipsLock = !backstop && fair == null;
    this.trails = b.tracer == null ? null : new Trails<>(b.tracer, clock, b.name);
    this.shutdown = new Shutdown(lock, clock, entries::isEmpty, this::closeLocked);
    FifoOrder<T> fifo = order instanceof FifoOrder<T> f ? f : null;
    boolean intake = fifo != null && !backstop && rules.mergesWithoutLock() && trails == null;
    this.consumers = new Consumers(lock, clock, intake ? fifo.intake() : null);
    this.crowd = intake ? new CrowdWindow(b.startCrowded) : null;
    this.intakeAdds =
        intake ? new IntakeAdds<>(entries, fifo, consumers, shutdown) : null;
    this.rounds = new Rounds<>(entries, order, metrics, backstop, shutdown);
    DelayHeap<T> heap = new DelayHeap<>(priority);
    DelayWakeup wakeup =
        backstop ? new DelayWakeup(clock, lock, this::onWakeupLocked, guard) : null;
    this.waiting = new WaitingRoom<>(heap, consumers, wakeup, shutdown);
    this.due = new DuePromotion<>(heap, order, rounds, consumers, waiting::changed, guard, trails);
    this.readings = new ClockReadings(clock, lock, order.readsClock(), waiting, due, consumers);
    this.processing = new Processing<>(lock, entries, readings, order, rounds, due, waiting,
        consumers, shutdown, metrics, intakeAdds, crowd, doneSkipsLock, b.name, trails);
  }

  // ---- adds ----

  /** An add without delay at {@code priority}. */
  void add(T item, int priority) {
    if (trails != null) { // under the lock, so that its context is recorded in its hold
      addAfter(item, priority, 0, false, false);
      return;
    }
    Entry<T> seen = entries.get(item);
    if (seen != null && rules.mergesWithoutLock() && seen.tryMerge(priority)) {
      return; // merged into the pending round, published through the stamp
    }
    if (intakeAdds != null && (seen == null || seen.isRetired()) && !crowd.isCrowded()
        && !waiting.mayHoldItems() && !shutdown.isShuttingDown()) {
      // nothing waits: none can be ready before the latest reading
      seen = intakeAdds.add(item, readings.latest());
      if (seen == null) {
        return;
      }
    }
    lock.lock();
    try {
      if (shutdown.isShuttingDown()) {
        return;
      }
      long now = readings.nowIfNeeded();
      due.releaseFor(item, now);
      if (addNowLocked(item, priority, seen, now)) {
        consumers.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * A delayed add (or, with {@code reschedule}, one that may also postpone a waiting item).
   * Counts one retry, also when the delay is zero or less, which adds now.
   */
  void addAfter(T item, int priority, long delayNanos, boolean reschedule) {
    addAfter(item, priority, delayNanos, reschedule, true);
  }

  /** {@code retry}: counts one; false for a traced add without delay ({@link #add}). */
  private void addAfter(T item, int priority, long delay, boolean reschedule, boolean retry) {
    if (fair != null) {
      fair.check(item); // a dimension that throws fails this call, not a later promotion
    }
    Trails.Mark mark = trails == null ? null : trails.capture(item, delay);
    lock.lock();
    try {
      if (shutdown.isShuttingDown()) {
        return;
      }
      long now = readings.now();
      due.releaseFor(item, now);
      addAfterLocked(item, priority, delay, reschedule, now, mark);
      if (retry) {
        metrics.retried();
      }
    } finally {
      lock.unlock();
    }
  }

  private void addAfterLocked(T item, int priority, long delayNanos, boolean reschedule,
      long now, Trails.Mark mark) {
    Entry<T> seen = rules.readsEntryOnDelayedAdd() ? entries.get(item) : null;
    if (rules.absorbsDelayedAdd(seen)) {
      if (!reschedule) {
        rounds.raise(seen, priority); // already ready: it keeps its earlier time
      }
      Trails.added(trails, item, mark); // merged into the pending round
      return;
    }
    if (delayNanos <= 0) {
      if (reschedule) {
        long p = waiting.takeOut(item);
        if (p != DelayHeap.ABSENT) {
          priority = (int) p; // a waiting item made ready now keeps its priority
          Trails.promoted(trails, item);
        }
      }
      boolean joined = addNowLocked(item, priority, seen, now);
      Trails.added(trails, item, mark);
      if (joined) {
        consumers.signal();
      }
      return;
    }
    if (doneSkipsLock) { // the item's equals may throw here: nothing has changed yet
      Entry<T> live = seen != null ? seen : entries.get(item);
      if (live != null) {
        live.noteDelayedAdd(); // its done must look at the waiting room
      }
    }
    waiting.add(item, priority, TimeMath.deadline(now, delayNanos), reschedule);
    Trails.delayed(trails, item, mark);
  }

  /**
   * Merges an add without delay into what the queue holds for {@code item}; {@code seen} is the
   * item's entry as read without the lock (still its entry unless retired), or null. Returns
   * whether an entry joined the ready order (the caller wakes a consumer).
   */
  private boolean addNowLocked(T item, int priority, Entry<T> seen, long now) {
    Entry<T> e = seen == null || seen.isRetired() ? null : seen;
    Entry<T> fresh = e == null ? order.newEntry(item, priority) : null; // may throw: no change
    if (rules.supersedesWaitingAdd() && !waiting.isEmpty()) {
      long p;
      try {
        p = waiting.takeOut(item);
      } catch (RuntimeException | Error t) {
        if (fresh != null) {
          order.released(fresh);
        }
        throw t;
      }
      if (p != DelayHeap.ABSENT) {
        priority = Math.max(priority, (int) p);
        Trails.promoted(trails, item);
      }
    }
    return rounds.newRound(item, priority, e, fresh, now, Rounds.JOIN_LINE) != null;
  }

  /** Removes a waiting add; whether there was one. */
  boolean cancel(T item) {
    lock.lock();
    try {
      long now = readings.nowIfNeeded();
      if (!due.mergesByTime()) {
        consumers.wake(due.promoteBatch(now));
      }
      // A due add (in any order, promoted yet or not) counts as queued, and a cancel does not
      // touch queued items.
      boolean removed = !waiting.holdsDue(item, now) && waiting.remove(item);
      if (removed) {
        Trails.discarded(trails, item);
      }
      return removed;
    } finally {
      lock.unlock();
    }
  }

  // ---- a worker's calls ----

  /**
   * Takes the next item, waiting up to {@code timeoutNanos} (forever if negative) on the
   * queue's clock. Returns its entry (now processing), {@link #TIMED_OUT} or {@link #SHUT_DOWN}.
   */
  Entry<T> take(long timeoutNanos) throws InterruptedException {
    return processing.take(timeoutNanos);
  }

  /** Ends the item's round, without the lock where it can ({@link Processing#done}). */
  void done(T item) {
    processing.done(item);
  }

  // ---- sizes ----

  /** Ready items: not processing (even if re-added), not waiting. */
  int size() {
    readings.lockWithNothingDue();
    try {
      return order.size();
    } finally {
      lock.unlock();
    }
  }

  int waitingCount() {
    readings.lockWithNothingDue();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  // ---- the metrics wake-up ----

  private void onWakeupLocked() {
    if (!shutdown.isShuttingDown()) {
      consumers.wake(due.promoteBatch(clock.nanoTime()));
      waiting.changed();
    }
  }

  // ---- shutdown ----

  // A shutdown keeps what is due at one clock reading and discards the rest: it promotes in
  // batches until nothing is due at a reading taken in the hold it then shuts down in (Shutdown
  // runs in that one hold, which a drain's wait lets go of).

  void shutDown() {
    readings.lockWithNothingDue();
    try {
      shutdown.shutDown();
    } finally {
      lock.unlock();
    }
  }

  void shutDownWithDrain() throws InterruptedException {
    shutDownWithDrain(null);
  }

  /** Waits for the drain up to {@code timeout}, or for good if null; whether it drained. */
  boolean shutDownWithDrain(java.time.Duration timeout) throws InterruptedException {
    readings.lockWithNothingDue();
    try {
      return shutdown.shutDownWithDrain(timeout);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Once, under the lock, with nothing due, right after {@link Shutdown} set its flag: adds stop
   * (the intake closes after the flag: an add without the lock that finds it closed sees the
   * flag), waiting items are discarded, gets wake.
   */
  private void closeLocked() {
    if (order instanceof FifoOrder<T> fifo) {
      fifo.close();
    }
    waiting.clear();
    Trails.discardedAll(trails);
    metrics.stopped();
    consumers.wakeAll();
  }

  boolean isShuttingDown() {
    return shutdown.isShuttingDown();
  }

  // ---- for tests ----

  /** Whether adds of new items take the lock ({@link CrowdWindow}). */
  boolean isCrowded() {
    return crowd != null && crowd.isCrowded();
  }

  /** Whether the FIFO's intake holds entries no take has drained yet. */
  boolean intakeHoldsEntries() {
    return order instanceof FifoOrder<T> fifo && fifo.intake().holdsEntries();
  }

  /** The structures agree with each other. */
  boolean checkInvariants() {
    lock.lock();
    try {
      int ready = order.size(); // drains the FIFO's intake first: its entries join the line
      return order.checkInvariants() && waiting.checkInvariants() && rounds.agreeWith(ready);
    } finally {
      lock.unlock();
    }
  }
}
