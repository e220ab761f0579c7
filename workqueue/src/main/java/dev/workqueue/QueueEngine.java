package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.TimeMath;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one engine under every queue kind: work, delaying, rate-limiting, priority and fair
 * queues are thin views of it that differ only in their {@link ReadyOrder} and two merge rules.
 *
 * <h2>State</h2>
 *
 * <ul>
 *   <li>{@link #entries}: one {@link Entry} per item that is dirty or processing (client-go's
 *       two sets in one map, so {@code add}, {@code get} and {@code done} each cost one hash
 *       operation);
 *   <li>{@link #order}: the READY entries, in the order they are handed out;
 *   <li>{@link #waiting}: items waiting for a delay, by ready time, with their priority as the
 *       heap's payload. A waiting item needs no entry: the waiting room is independent of the
 *       dirty and processing state, as in client-go, and costs ~30 bytes an item.
 * </ul>
 *
 * Everything is guarded by {@link #lock}, except three steps that change only an entry's stamp
 * ({@link Entry}), the map and the FIFO's intake:
 *
 * <ul>
 *   <li>the merge of an add into a round that is already pending, which publishes through the
 *       stamp, so the {@code java.util.concurrent} promise holds for every add, merged or not;
 *   <li>on a FIFO queue without metrics or supersede, while nothing waits, the add of a new
 *       item ({@link #addWithoutLock}): its entry goes into the map unpublished ({@link
 *       Entry#FRESH}), onto the FIFO's lock-free intake ({@link FifoOrder.Intake#offer}), which the
 *       next locked operation on the line drains, and is then published. So producers and
 *       consumers do not contend for the lock (unless more than one thread takes: then the
 *       entry joins the line under the lock, {@link #crowded}). A consumer about to wait counts itself in {@link #waiters} and looks at
 *       the intake again; the producer whose push found the intake empty reads {@link
 *       #waiters} after its push and wakes one; a consumer that takes an item and leaves
 *       others in line wakes the next (as {@code LinkedBlockingQueue}), so no wake-up is
 *       lost. Shutdown closes the intake under the lock, so no such add lands
 *       after it;
 *   <li>on a queue without metrics or fair order, while no delayed add of the item can wait
 *       (nothing waits, or the item was handed out from the waiting room and no delayed add of
 *       it came since: {@link Entry#mayHaveDelayedAdd}), the {@code done} that ends a round
 *       ({@link Entry#tryRetire}), which excludes an add that would hold a new round on the same
 *       entry ({@link Entry#tryHold}).
 * </ul>
 *
 * <h2>Merge rules</h2>
 *
 * client-go's: a delayed add waits in {@link #waiting} whatever the item's state, and when
 * due it is added like any other add (merged if the item is dirty then). With {@code
 * supersede} (an option of the delaying queue; always on for the priority queue) an add
 * without delay also removes a waiting add of the item. With {@code priorityRules}
 * (controller-runtime's): a delayed add of a dirty item only raises its priority (a ready item
 * never goes back to waiting), and an item keeps the highest priority it was added with.
 *
 * <h2>Releasing delayed items: the consumers do it</h2>
 *
 * Nothing runs on a timer to move due items into the ready order (as in {@link
 * java.util.concurrent.DelayQueue}): while items wait, one waiting consumer, the
 * <em>leader</em>, parks only until the head's ready time; the others wait until signalled. A
 * consumer that stops leading hands the lead to a follower, and a consumer that releases
 * several items wakes one follower per item beyond its own: one wake-up per delivered item at
 * most, as {@code DelayQueue}, and no spinning.
 *
 * <p><b>FIFO: due items are merged, not moved.</b> The FIFO order is sorted by the time each
 * entry became ready, and the waiting room by ready time, so a take hands out whichever of the
 * two heads became ready first: a due item leaves the waiting room only when it is handed out
 * (or when an operation on that very item needs it queued: {@code add}, {@code addAfter},
 * {@code done}, {@code cancel} of a due item see it queued; a take that hands the item out
 * merges its due add into that round, as it fell due while the item was queued). A million
 * items falling due at once get their entries one by one as consumers take them, so the
 * garbage they make dies young, and an {@code add} on another thread waits for no promotion
 * at all. What is moved in before a take reaches it (by a count, a shutdown, an operation on
 * the item, a metrics wake-up) keeps its ready time, in the FIFO's due line ({@link
 * ReadyOrder#appendDue}), so it is still handed out before items added after it fell due.
 *
 * <p><b>Priority and fair orders: bounded promotion.</b> Their order is not by time, so every
 * operation first <em>promotes</em> what is due into the order, at most {@link #PROMOTE_BATCH}
 * items per hold of the lock: the first due item is handed out without waiting for the rest.
 * Counting operations ({@code size}, {@code waitingCount}) and shutdown promote everything
 * due, a batch per hold of the lock, in every order.
 *
 * <p><b>A timer only for metrics.</b> A queue with live metrics (a named queue) must move due
 * items on time even when no consumer comes, so that its depth and adds are right: it arms one
 * clock wake-up for the head's ready time while items wait and no consumer waits (no earlier
 * than {@link DelayWakeup#GRACE_NANOS} after a consumer last took an item: that consumer is
 * likely back before then). A queue without metrics schedules nothing at all.
 *
 * <h2>User code runs after the change</h2>
 *
 * Metrics hooks and the clock's {@code schedule} run after the state change they report is
 * complete, through {@link HookGuard}, which logs, counts and swallows what they throw. The
 * caller's {@code equals}/{@code hashCode} and the fair order's dimension run before anything
 * changes, so a throw fails the call that brought the item and harms no other.
 */
final class QueueEngine<T> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  /** The most due items moved into the ready order under one hold of the lock. */
  static final int PROMOTE_BATCH = 64;

  /** How {@link #newRoundLocked} puts a new round in line. */
  private static final int JOIN_LINE = 0;
  private static final int JOIN_DUE = 1;
  private static final int HAND_OUT = 2;

  /**
   * How many times a consumer spins watching the intake before it parks ({@link
   * #spinForAnAdd}); no spinning on one processor, where the producer cannot run meanwhile.
   */
  private static final int SPINS_BEFORE_PARKING =
      Runtime.getRuntime().availableProcessors() > 1 ? 128 : 0;

  /** How many takes {@link #noteTakerLocked} counts before it decides {@link #crowded} again. */
  static final int CROWD_WINDOW = 256;

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
  private final Condition notEmpty = lock.newCondition();
  /** Written on every take: allocated right after the order, away from what producers read. */
  private final TakerWindow takers;
  private final Clock clock;
  private final String name;
  private final HookGuard guard;
  private final QueueMetrics<T> metrics;
  private final ReadyOrder<T> order;
  private final FairOrder<T> fair; // the order, if fair: delayed adds check the dimension early
  private final boolean orderReadsClock;
  /**
   * Whether an add of a dirty item may merge without the lock: not when an add must also remove
   * a waiting add of the item (supersede) and a dirty item may wait (client-go's rules).
   */
  private final boolean lockFreeMerge;
  /** The order, if FIFO: due items are merged into it by time instead of promoted. */
  private final FifoOrder<T> fifo;
  /** The FIFO's intake, held here: producers read no field of the order itself. */
  private final FifoOrder.Intake<T> intake;
  private final boolean priorityRules;
  private final boolean supersede;
  private final boolean backstop;
  /**
   * Whether a {@code done} that only ends a round may skip the lock: when nothing it would
   * report needs the lock (no live metrics, not the fair order's group counts).
   */
  private final boolean lockFreeDone;
  /**
   * Whether an add of a new item may skip the lock while nothing waits, pushing its entry onto
   * the FIFO's intake ({@link FifoOrder.Intake#offer}; under the lock while {@link #crowded}): the FIFO order without live metrics (which count under the lock)
   * and without supersede (whose add must look at the waiting room).
   */
  private final boolean lockFreeAdd;
  /**
   * Whether more than one consumer thread takes from this queue (FIFO with {@link #lockFreeAdd}
   * only): then an add of a new item puts its entry in line under the lock, and a
   * consumer about to wait parks without spinning first ({@link #spinForAnAdd}).
   *
   * <p>Why: with the intake, producers never wait, so with more threads than processors every
   * processor runs queue work at once, and each item's entry, its map bin and the consumers'
   * lock cross between processors. On the 2-vCPU machine of the benchmarks that load went with
   * the host's slow cross-core episodes (a ~400 ns round trip instead of ~70) in about half of
   * the measured seconds, where two producers and two consumers ran at under half their speed.
   * When adds take the lock, threads wait for it in turn and the work runs in bursts on one
   * processor at a time, as client-go's one-mutex queue does; that held its rate. One consumer
   * keeps the intake: its hand-off runs about 1.8 times the one-mutex queue's.
   *
   * <p>Under a steady load of two producers and two consumers it flips often: while adds take
   * the lock, one consumer may take a whole window alone while the other waits for the lock.
   * Measured (JMH, 2026-11-25), that mix ran faster than either way alone: 7.8 M/s in the near
   * mode against 6.6 when crowded for good and 6.7 for the one-mutex queue, and 6.9 in far
   * iterations (the intake alone: about 3).
   *
   * <p>Decided by the consumers, per {@value #CROWD_WINDOW} takes ({@link #noteTakerLocked});
   * written under the lock, only when it changes, and read by producers without it. A producer
   * that read it stale only takes the other way in: every take drains the intake before it
   * looks at the line. The add puts its entry in the map without the lock (as through the
   * intake), then takes the lock to put it in line: a locked path that meets the entry
   * meanwhile, still unpublished ({@link Entry#FRESH}), puts it in line itself ({@link
   * Entry#appendPending}) instead of waiting for its publication while holding the lock that
   * the add waits for. Performance only: a queue taken from by changing threads (an executor's, virtual threads)
   * stays crowded, and adds then cost what they cost on a named queue.
   */
  private volatile boolean crowded;
  /**
   * True whenever {@link #waiting} holds an item: set under the lock before an item goes in,
   * cleared under the lock when it is seen empty. A {@code done} that reads false may skip the
   * lock, as no delayed add of its item can be due (client-go queues such an item at done); one
   * that reads true may still skip it if its entry says no delayed add of the item came since
   * the take ({@link Entry#mayHaveDelayedAdd}).
   */
  private volatile boolean anyWaiting;

  /**
   * The JDK's map: a bin of items that share one hash becomes a tree when they are {@code
   * Comparable}, so keys made to collide cost O(log n) per operation, not O(n).
   */
  private final ConcurrentHashMap<T, Entry<T>> entries = new ConcurrentHashMap<>();
  private final DelayHeap<T> waiting;
  private final DelayWakeup wakeup;
  private final Shutdown shutdown;
  /**
   * READY + HELD, kept only for live metrics: a queue without them does not write this shared
   * field on every add and take.
   */
  private int dirty;
  /**
   * Consumers waiting on {@link #notEmpty}, the leader included while it waits. Written under
   * the lock; volatile for the add that skips the lock, which reads it after its push while a
   * consumer looks at the intake after counting itself in, so one of the two sees the other.
   */
  private volatile int waiters;
  /** The consumer waiting until the head's ready time, or null. */
  private Thread leader;
  private volatile boolean shuttingDown; // written under the lock
  private boolean warnedUnpairedDone;
  /**
   * The latest clock reading: the time stamp of an entry that joins the FIFO order while
   * nothing waits (no reading needed then: every item that waits later is ready after it).
   */
  private volatile long lastNow;

  /**
   * @param priority controller-runtime's rules and order (else FIFO, or fair if the builder
   *     names a dimension)
   */
  QueueEngine(WorkQueueBuilder<T> b, boolean priority) {
    this.clock = b.clock;
    this.name = b.name;
    this.guard = new HookGuard(b.name);
    if (priority) {
      this.order = new PriorityOrder<>(b.agingThresholdNanos);
      this.fair = null;
    } else if (b.fairDimension != null) {
      this.fair = new FairOrder<>(b.fairDimension);
      this.order = fair;
    } else {
      this.order = new FifoOrder<>();
      this.fair = null;
    }
    this.takers = new TakerWindow();
    this.fifo = order instanceof FifoOrder<T> f ? f : null;
    this.intake = fifo != null ? fifo.intake() : null;
    this.orderReadsClock = order.readsClock();
    this.priorityRules = priority;
    this.supersede = priority || b.addSupersedesDelayed;
    this.lockFreeMerge = !supersede || priorityRules;
    this.waiting = new DelayHeap<>(priority);
    QueueMetrics<T> m = b.newMetrics(lock);
    this.backstop = !(m instanceof QueueMetrics.Noop);
    this.metrics = backstop
        ? new GuardedMetrics<>(m, priority ? b.newPriorityDepthMetric() : null, guard) : m;
    this.lockFreeDone = !backstop && fair == null;
    this.lockFreeAdd = fifo != null && !backstop && lockFreeMerge;
    this.crowded = lockFreeAdd && b.startCrowded;
    this.wakeup = new DelayWakeup(clock, lock, this::onWakeupLocked, guard);
    this.shutdown = new Shutdown(lock, clock, entries::isEmpty, this::markShuttingDown);
    // A reading, not 0: readings are compared by their difference, which must be less than
    // 2^63 ns, and a clock may start anywhere (a FakeClock near Long.MAX_VALUE, say).
    this.lastNow = clock.nanoTime();
  }

  // ---- adds ----

  /** An add without delay at {@code priority}. */
  void add(T item, int priority) {
    Entry<T> seen = entries.get(item);
    if (seen != null && lockFreeMerge && seen.tryMerge(priority)) {
      return; // merged into the pending round, published through the stamp
    }
    if (lockFreeAdd && (seen == null || seen.isRetired()) && !anyWaiting && !shuttingDown) {
      seen = addWithoutLock(item);
      if (seen == null) {
        return;
      }
    }
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      long now = nowIfNeeded();
      promoteDueLocked(item, now);
      if (addNowLocked(item, priority, seen, now) && waiters > 0) {
        notEmpty.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * An add of an item that has no live entry, without the lock (FIFO, nothing waiting): a fresh
   * READY entry goes into the map and onto the FIFO's intake (into line under the lock while
   * {@link #crowded}: {@link #appendCrowded}). Returns null when the add is
   * complete (queued, merged, or dropped by a shutdown), else the live entry another add put in
   * the map first, for the locked path to merge into or hold.
   */
  private Entry<T> addWithoutLock(T item) {
    Entry<T> fresh = fifo.newEntry(item, 0);
    fresh.ready = Entry.READY;
    fresh.readySince = lastNow; // nothing waits: no waiting item can be ready before this
    boolean viaLock = crowded;
    fresh.appendPending = viaLock; // published to locked paths by the map's insert
    Entry<T> e;
    try {
      e = insert(item, fresh); // the item's hashCode, equals or compareTo may throw
    } catch (RuntimeException | Error t) {
      boolean drop = true;
      if (viaLock) { // the map may have taken it in before it threw, and a locked path met it
        try {
          drop = claimPending(fresh); // false: it is in line already, so it stays
        } catch (RuntimeException | Error again) {
          t.addSuppressed(again); // still pending: the next locked path to meet it puts it in line
          drop = false;
        }
      }
      if (drop) {
        dropAfterFailedInsert(item, fresh, t);
      }
      throw t;
    }
    if (e != null) {
      return e.tryMerge(0) ? null : e;
    }
    if (viaLock) {
      appendCrowded(fresh);
      return null;
    }
    int offered = intake.offer(fresh);
    if (offered == FifoOrder.CLOSED_TO_OFFERS) { // the queue shut down after this add read the flag
      dropUnoffered(fresh);
      shutdown.lockAndSignalIfDrained();
      return null;
    }
    fresh.publishOffered(0);
    // Only the push onto an empty intake wakes a consumer: a push behind it would find the
    // woken consumer still counted in until it has the lock again, and signal (and contend for
    // the lock) once per item meanwhile. The consumer that drains the batch wakes the next.
    // waiters is read after the push, and a consumer counts itself in before it looks at the
    // intake: one of the two sees the other.
    if (offered == FifoOrder.OFFERED_FIRST && waiters > 0) {
      lock.lock();
      try {
        if (waiters > 0) {
          notEmpty.signal();
        }
      } finally {
        lock.unlock();
      }
    }
    return null;
  }

  /**
   * Takes a crowded add's entry back from the locked paths that could put it in line ({@link
   * Entry#appendPending}): false if one already did.
   */
  private boolean claimPending(Entry<T> fresh) {
    lock.lock();
    try {
      boolean pending = fresh.appendPending;
      fresh.appendPending = false;
      return pending;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The end of {@link #addWithoutLock} while consumers are {@link #crowded}: {@code fresh}, in
   * the map with {@link Entry#appendPending}, joins the line under the lock, unless a locked
   * path that met it did that first ({@link #appendPendingLocked}), or leaves the map if the
   * queue shut down.
   */
  private void appendCrowded(Entry<T> fresh) {
    boolean closed = false;
    lock.lock();
    try {
      if (fresh.appendPending) {
        if (shuttingDown) {
          fresh.appendPending = false;
          closed = true;
        } else {
          appendPendingLocked(fresh);
        }
      }
    } finally {
      lock.unlock();
    }
    if (closed) { // still FRESH, and no longer pending: a locked path waits for this, not the lock
      dropUnoffered(fresh);
      shutdown.lockAndSignalIfDrained();
    }
  }

  /**
   * Under the lock: puts a crowded add's entry ({@link Entry#appendPending}) in line and
   * publishes it, for its add or for a locked path that met it in the map and must
   * not wait for its publication (the add waits for the lock this path holds).
   */
  private void appendPendingLocked(Entry<T> e) {
    e.appendPending = false;
    fifo.append(e, e.readySince);
    e.publishOffered(0);
    if (waiters > 0) {
      notEmpty.signal();
    }
  }

  /**
   * An entry that never reached the intake (or, made under the lock, the order) leaves the map,
   * retired, so an add waiting for its publication ({@link Entry#awaitPublished}) goes on.
   */
  private void dropUnoffered(Entry<T> fresh) {
    fresh.retireUnoffered();
    entries.remove(fresh.item, fresh);
  }

  /**
   * After the map threw while inserting {@code fresh}: the item's {@code equals} (nothing has
   * changed then), or the map failing after it took the entry in (the item's {@code compareTo}
   * while the map turns a bin into a tree, an {@code OutOfMemoryError} while it grows), where an
   * entry left unpublished would make every later add of the item wait for it forever. So the
   * entry is dropped as {@link #dropUnoffered} does, and a draining shutdown looks again; a
   * second throw of the item's {@code equals} is added to {@code cause}.
   */
  private void dropAfterFailedInsert(T item, Entry<T> fresh, Throwable cause) {
    try {
      dropUnoffered(fresh);
    } catch (RuntimeException | Error again) {
      cause.addSuppressed(again);
    }
    if (shuttingDown) {
      shutdown.lockAndSignalIfDrained();
    }
  }

  /**
   * Before an operation on {@code item}: what is due counts as added at its ready time. The
   * priority and fair orders promote a batch of due items; the FIFO order moves only {@code
   * item}, if a delayed add of it is due (the others are merged in by the takes).
   */
  private void promoteDueLocked(T item, long now) {
    if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
      return;
    }
    if (fifo == null) {
      wake(promoteLocked(now));
    } else if (waiting.isDue(item, now)) {
      long readyAt = waiting.readyAtOf(item);
      waiting.remove(item);
      if (promoteItemLocked(item, 0, readyAt)) {
        wake(1);
      }
    }
  }

  /**
   * A delayed add (or, with {@code reschedule}, one that may also postpone a waiting item).
   * Counts one retry, also when the delay is zero or less, which adds now.
   */
  void addAfter(T item, int priority, long delayNanos, boolean reschedule) {
    if (fair != null) {
      fair.check(item); // a dimension that throws fails this call, not a later promotion
    }
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      long now = readClock();
      promoteDueLocked(item, now);
      addAfterLocked(item, priority, delayNanos, reschedule, now);
      metrics.retried();
    } finally {
      lock.unlock();
    }
  }

  private void addAfterLocked(T item, int priority, long delayNanos, boolean reschedule,
      long now) {
    Entry<T> seen = null;
    if (priorityRules) {
      seen = entries.get(item);
      if (seen != null && seen.isDirty()) {
        if (!reschedule) {
          raiseLocked(seen, priority); // already ready: it keeps its earlier time
        }
        return;
      }
    }
    if (delayNanos <= 0) {
      if (reschedule) {
        long p = waiting.removeReturningPayload(item);
        if (p != DelayHeap.ABSENT) {
          priority = (int) p; // a waiting item made ready now keeps its priority
          waitingChangedLocked();
        }
      }
      if (addNowLocked(item, priority, seen, now) && waiters > 0) {
        notEmpty.signal();
      }
      return;
    }
    if (lockFreeDone) { // the item's equals may throw here: nothing has changed yet
      Entry<T> live = seen != null ? seen : entries.get(item);
      if (live != null) {
        live.noteDelayedAdd(); // its done must look at the waiting room
      }
    }
    long readyAt = TimeMath.deadline(now, delayNanos);
    if (!anyWaiting) {
      anyWaiting = true;
    }
    boolean empty = waiting.isEmpty();
    long oldHead = empty ? 0 : waiting.headReadyAt();
    if (reschedule) {
      waiting.schedule(item, readyAt, priority);
    } else if (empty || readyAt - oldHead < 0) {
      waiting.offerEarliest(item, readyAt, priority); // a new head
    } else {
      waiting.offerEarliestDeferred(item, readyAt, priority); // behind the head: no change
      return;
    }
    if (empty || waiting.isEmpty() || waiting.headReadyAt() != oldHead) {
      headChangedLocked();
    }
  }

  /**
   * Merges an add without delay into what the queue holds for {@code item}; {@code seen} is the
   * item's entry as read without the lock (still its entry unless retired), or null. Returns
   * whether an entry joined the ready order (the caller wakes a consumer).
   */
  private boolean addNowLocked(T item, int priority, Entry<T> seen, long now) {
    Entry<T> e = seen == null || seen.isRetired() ? null : seen;
    Entry<T> fresh = e == null ? order.newEntry(item, priority) : null; // may throw: no change
    if (supersede && !waiting.isEmpty()) {
      long p;
      try {
        p = waiting.removeReturningPayload(item);
      } catch (RuntimeException | Error t) {
        if (fresh != null) {
          order.released(fresh);
        }
        throw t;
      }
      if (p != DelayHeap.ABSENT) {
        priority = Math.max(priority, (int) p);
        waitingChangedLocked();
      }
    }
    return newRoundLocked(item, priority, e, fresh, now, JOIN_LINE) != null;
  }

  /**
   * The core of every add without delay, a due item's included: {@code item}'s live entry
   * {@code e} (or null if it has none) merges the add if dirty, and holds a new round until
   * done if processing; an item without a live entry gets {@code fresh} (made here if null),
   * READY since {@code readySince} and, as {@code join} says, in the ready order ({@link
   * #JOIN_LINE}, an add now; {@link #JOIN_DUE}, a due delayed add, which counts as added at its
   * ready time), published and counted; or ({@link #HAND_OUT}) still {@link Entry#FRESH} and
   * not counted, for the caller to hand out at once ({@link #takeLocked}). Returns the fresh
   * entry if one was made ready, else null. The item's {@code equals} may throw from the map:
   * then nothing has changed.
   */
  private Entry<T> newRoundLocked(T item, int priority, Entry<T> e, Entry<T> fresh,
      long readySince, int join) {
    while (true) {
      if (e == null) {
        if (fresh == null) {
          fresh = order.newEntry(item, priority);
        }
        try {
          e = insert(item, fresh); // one map operation for a new item
        } catch (RuntimeException | Error t) {
          dropAfterFailedInsert(item, fresh, t);
          order.released(fresh);
          throw t;
        }
        if (e == null) {
          fresh.priority = priority;
          fresh.ready = Entry.READY;
          if (join == HAND_OUT) {
            fresh.readySince = readySince; // joins and leaves the order in one step
            return fresh; // the take that asked for it publishes and counts it (takeLocked)
          }
          if (join == JOIN_DUE) {
            order.appendDue(fresh, readySince);
          } else {
            order.append(fresh, readySince);
          }
          fresh.publishNewRound();
          countAddedLocked(fresh); // user code: after the entry is published
          return fresh;
        }
      }
      if (e.appendPending) { // a crowded add's, which waits for this lock: in line for it
        appendPendingLocked(e); // (not reached after a shutdown, which promotes nothing later)
      }
      e.awaitPublished(); // another thread's add without the lock may be finishing
      if (e.isRetired()) {
        e = null; // its done retired it, or a shutdown dropped it: the item is new
        continue;
      }
      if (e.isDirty()) {
        raiseLocked(e, priority); // merged into the pending round
        break;
      }
      if (e.tryHold(priority)) { // processing: a new round, held until done
        e.priority = priority; // the processing round's priority is over
        e.ready = Entry.HELD;
        countAddedLocked(e);
        break;
      }
      e = null; // its done retired it meanwhile: the item is new to the queue
    }
    if (fresh != null) {
      order.released(fresh);
    }
    return null;
  }

  /**
   * Puts {@code fresh} in the map unless {@code item} has a live entry there, which it returns
   * (null if {@code fresh} went in). A retired entry still in the map is replaced. With or
   * without the lock. The item's {@code hashCode}, {@code equals} or {@code compareTo} may throw,
   * possibly after the map took {@code fresh} in ({@link #dropAfterFailedInsert}).
   */
  private Entry<T> insert(T item, Entry<T> fresh) {
    Entry<T> e;
    while ((e = entries.putIfAbsent(item, fresh)) != null && e.isRetired()) {
      if (entries.replace(item, e, fresh)) {
        return null;
      }
    }
    return e;
  }

  private void countAddedLocked(Entry<T> e) {
    if (backstop) {
      dirty++;
      metrics.added(e.item, dirty, e.priority);
    }
  }

  /** A dirty entry's priority rises to {@code priority}, if that is higher. */
  private void raiseLocked(Entry<T> e, int priority) {
    if (priority <= e.priority) {
      return;
    }
    int old = e.priority;
    if (e.ready == Entry.READY) {
      order.raise(e, priority);
    } else {
      e.priority = priority;
    }
    e.publish();
    metrics.raised(old, priority);
  }

  /** Removes a waiting add; whether there was one. */
  boolean cancel(T item) {
    lock.lock();
    try {
      long now = nowIfNeeded();
      if (fifo == null) {
        wake(promoteLocked(now));
      }
      if (!waiting.isEmpty() && TimeMath.reached(now, waiting.headReadyAt())
          && waiting.isDue(item, now)) {
        return false; // due (in any order, promoted yet or not): it counts as queued, and a
                      // cancel does not touch queued items
      }
      if (!waiting.remove(item)) {
        return false;
      }
      waitingChangedLocked();
      return true;
    } finally {
      lock.unlock();
    }
  }

  // ---- promotion ----

  /** A clock reading if anything waits or the order needs one; else the latest reading. */
  private long nowIfNeeded() {
    return !waiting.isEmpty() || orderReadsClock ? readClock() : lastNow;
  }

  private long readClock() {
    return lastNow = clock.nanoTime();
  }

  /**
   * Moves up to {@link #PROMOTE_BATCH} items due at {@code now} into the ready order, in
   * ready-time order, each as an add made at its ready time. Returns how many joined the
   * ready order (the caller wakes consumers for them).
   */
  private int promoteLocked(long now) {
    if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
      return 0;
    }
    int joined = 0;
    int n = 0;
    do {
      long readyAt = waiting.headReadyAt();
      int priority = waiting.headPayload();
      if (promoteItemLocked(waiting.poll(), priority, readyAt)) {
        joined++;
      }
    } while (++n < PROMOTE_BATCH && !waiting.isEmpty()
        && TimeMath.reached(now, waiting.headReadyAt()));
    if (waiting.isEmpty()) {
      wakeup.cancel();
    }
    return joined;
  }

  /**
   * Adds {@code item}, just taken out of the waiting room, as ready since {@code readyAt}:
   * merged if it is dirty, held if it is processing. Returns whether it joined the order.
   */
  private boolean promoteItemLocked(T item, int priority, long readyAt) {
    Entry<T> fresh;
    try {
      fresh = order.newEntry(item, priority); // the fair order's dimension
    } catch (RuntimeException ex) {
      guard.failed("promoting a due item (its dimension)", ex);
      return false;
    }
    try {
      return newRoundLocked(item, priority, null, fresh, readyAt, JOIN_DUE) != null;
    } catch (RuntimeException ex) { // the item's equals or hashCode
      guard.failed("promoting a due item (its equals or hashCode)", ex);
      return false;
    }
  }

  /**
   * FIFO: the entry of the due item that became ready before the FIFO's head (or any due item
   * if the FIFO is empty), taken out of the waiting room, ready and about to be handed out; null
   * if the FIFO's head comes first. Due items already dirty merge on the way (at most a batch
   * of them per call).
   */
  private Entry<T> takeDueLocked(long now) {
    for (int n = 0; n < PROMOTE_BATCH; n++) {
      if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())
          || (fifo.size() > 0 && waiting.headReadyAt() - fifo.headReadySince() >= 0)) {
        return null;
      }
      long readyAt = waiting.headReadyAt();
      T item = waiting.poll();
      Entry<T> fresh = fifo.newEntry(item, 0);
      fresh.noteMadeFromWaitingRoom(); // the waiting room held one add of the item: this one
      try {
        Entry<T> e = newRoundLocked(item, 0, null, fresh, readyAt, HAND_OUT);
        if (e != null) {
          return e; // else merged into a pending round, or held until done
        }
      } catch (RuntimeException ex) { // the item's equals or hashCode
        guard.failed("handing out a due item (its equals or hashCode)", ex);
      }
    }
    return null;
  }

  /**
   * Promotes everything due, a batch per hold of the lock, and returns holding the lock, with
   * nothing due at the clock reading taken in this hold: a count read, or a shutdown made,
   * before the caller unlocks is exact at that reading ({@code size}, {@code waitingCount},
   * {@code shutDown}). Doing it in a later hold would let the clock move between the two, and
   * the count (or the shutdown's last promotion) take some of what fell due and not the rest.
   */
  private void lockWithNothingDue() {
    while (true) {
      lock.lock();
      boolean settled = false;
      try {
        long now = readClock();
        if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
          settled = true; // loops on the head, not on what joined: merged items join nothing
          return;
        }
        wake(promoteLocked(now));
      } finally {
        if (!settled) {
          lock.unlock();
        }
      }
    }
  }

  /** Signals up to {@code n} waiting consumers; returns how many. */
  private int wake(int n) {
    int k = Math.min(n, waiters);
    for (int i = 0; i < k; i++) {
      notEmpty.signal();
    }
    return k;
  }

  /**
   * The head's ready time changed (or the first item waits): a leader waiting for the old head
   * may wait too long, and followers wait for no time at all. Wake one; it leads for the new
   * head.
   */
  private void headChangedLocked() {
    if (waiters > 0) {
      leader = null;
      notEmpty.signal();
    } else {
      armBackstopLocked();
    }
  }

  /** An item left the waiting room other than by promotion. */
  private void waitingChangedLocked() {
    armBackstopLocked(); // a leader waiting for a removed head wakes early and re-waits
  }

  // ---- consumers ----

  /**
   * Takes the next item, waiting up to {@code timeoutNanos} (forever if negative) on the
   * queue's clock. Returns its entry (now processing), {@link #TIMED_OUT} or {@link #SHUT_DOWN}.
   */
  @SuppressWarnings("unchecked")
  Entry<T> take(long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      return take(timeoutNanos >= 0, timeoutNanos);
    } finally {
      lock.unlock();
    }
  }

  @SuppressWarnings("unchecked")
  private Entry<T> take(boolean timed, long timeoutNanos) throws InterruptedException {
    boolean signalled = false;
    boolean spun = false;
    long now = timed ? readClock() : nowIfNeeded();
    long deadline = timed ? TimeMath.deadline(now, timeoutNanos) : 0;
    try {
      for (boolean first = true; ; first = false) {
        if (!first) {
          now = timed ? readClock() : nowIfNeeded();
        }
        int joined = 0;
        Entry<T> e = null;
        if (fifo != null) {
          e = takeDueLocked(now);
        } else {
          joined = promoteLocked(now);
        }
        boolean fromWaiting = e != null; // the waiting room holds no other add of its item
        if (e == null) {
          e = order.poll(now);
        }
        if (e != null) {
          signalled = wake(joined - 1) > 0; // the rest of what this consumer promoted
          if (!signalled && lockFreeAdd && waiters > 0 && order.size() > 0) {
            notEmpty.signal(); // the rest of the line: the intake's adds signal for the first only
            signalled = true;
          }
          if (lockFreeAdd) {
            noteTakerLocked();
          }
          if (!fromWaiting) {
            mergeDueAddLocked(e.item, now);
          }
          takeLocked(e, now, fromWaiting);
          return e;
        }
        if (shuttingDown) {
          return SHUT_DOWN;
        }
        if (timed && TimeMath.reached(now, deadline)) {
          return TIMED_OUT;
        }
        if (leader == null && !waiting.isEmpty()
            && (!timed || waiting.headReadyAt() - deadline < 0)) {
          awaitAsLeader(waiting.headReadyAt());
        } else if (lockFreeAdd && !spun && !crowded && waiting.isEmpty()) {
          spun = true;
          spinForAnAdd();
        } else {
          waiters++;
          try {
            if (nothingOffered()) {
              if (timed) {
                clock.awaitUntil(lock, notEmpty, deadline);
              } else {
                notEmpty.await();
              }
            }
          } finally {
            waiters--;
          }
        }
      }
    } finally {
      if (waiting.isEmpty()) {
        noteNothingWaitsLocked();
      } else if (leader == null) {
        if (waiters > 0) {
          if (!signalled) {
            notEmpty.signal(); // hand the lead over
          }
        } else {
          armBackstopLocked();
        }
      }
    }
  }

  /**
   * Under the lock, after a take: counts the times the taking thread changed, and every {@value
   * #CROWD_WINDOW} takes sets {@link #crowded}: on once two changes fell in one window (more than
   * one thread took in it), off again after a window with none.
   */
  private void noteTakerLocked() {
    TakerWindow w = takers;
    long me = Thread.currentThread().getId();
    if (me != w.lastId) {
      w.lastId = me;
      w.changes++;
    }
    if (++w.takes == CROWD_WINDOW) {
      boolean now = crowded ? w.changes > 0 : w.changes >= 2;
      if (now != crowded) {
        crowded = now;
      }
      w.takes = 0;
      w.changes = 0;
    }
  }

  /** {@link #noteTakerLocked}'s counts, under the lock. */
  private static final class TakerWindow {
    long lastId = -1; // the id of the thread that took last
    int takes;
    int changes;
  }

  private void noteNothingWaitsLocked() {
    if (anyWaiting) {
      anyWaiting = false;
    }
  }

  /**
   * A delayed add of {@code item}, which is about to be handed out, that is due now fell due
   * while the item was queued (or before it was, when nothing held it): client-go merges it
   * into this round, so it must not make another round at the item's {@code done}.
   */
  private void mergeDueAddLocked(T item, long now) {
    if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
      return;
    }
    try {
      if (waiting.isDue(item, now)) {
        waiting.remove(item);
        waitingChangedLocked();
      }
    } catch (RuntimeException ex) { // the item's equals or hashCode: hand it out anyway
      guard.failed("merging a due add of an item handed out (its equals or hashCode)", ex);
    }
  }

  /**
   * Hands {@code e} out, just polled from the order or, if {@code fresh}, just made from the
   * waiting room (still {@link Entry#FRESH}): it is processing now.
   */
  private void takeLocked(Entry<T> e, long now, boolean fresh) {
    e.ready = Entry.NONE;
    e.processing = true;
    e.takenPriority = e.priority;
    if (fresh) {
      e.handOutFresh(); // no add can have merged into it
      countAddedLocked(e); // its add, reported once it is published, before its take
    } else {
      e.publish(); // reads the stamp's last write: every merged add of this round happens-before
    }
    if (backstop) {
      dirty--;
      if (!waiting.isEmpty()) {
        wakeup.tookAt(now);
      }
      metrics.taken(e.item, dirty, e.priority);
    }
  }

  /**
   * Before a consumer parks on an empty FIFO queue that producers add to without the lock: it
   * lets the lock go and spins briefly, watching the intake. A producer that adds meanwhile
   * needs no lock to wake a parked consumer, and the consumer skips a park and an unpark, each
   * costlier than the hand-off itself. Once per wait of a {@code get}, a few microseconds.
   *
   * <p>Not while {@link #crowded}: adds then take the lock and signal a waiting consumer.
   *
   * <p>It does not {@code Thread.yield()}: on Linux's EEVDF scheduler a yield moves the
   * yielder's deadline a whole slice later, so a consumer that shares its processor with a
   * thread that never blocks (producers whose adds merge without the lock, in an add storm)
   * gave the processor away for milliseconds at a time: 16 yields here held the add storm's
   * consumer to 0.22 M/s, against 2.79 M/s without them (JMH, 2026-11-24).
   */
  private void spinForAnAdd() {
    lock.unlock();
    try {
      for (int i = 0; i < SPINS_BEFORE_PARKING && !intake.holdsEntries(); i++) {
        Thread.onSpinWait();
      }
    } finally {
      lock.lock();
    }
  }

  /**
   * Read after a consumer counted itself in {@link #waiters}: whether no add without the lock
   * pushed an entry that it may not signal for (it read {@link #waiters} before the count).
   */
  private boolean nothingOffered() {
    return !lockFreeAdd || !intake.holdsEntries();
  }

  /** Waits as the leader until {@code wakeAt}, or until signalled. */
  private void awaitAsLeader(long wakeAt) throws InterruptedException {
    Thread me = Thread.currentThread();
    leader = me;
    waiters++;
    try {
      if (nothingOffered()) {
        clock.awaitUntil(lock, notEmpty, wakeAt);
      }
    } finally {
      waiters--;
      if (leader == me) {
        leader = null;
      }
    }
  }

  /**
   * Ends the item's round. Without the lock when nothing it would report needs the lock ({@link
   * #lockFreeDone}) and no delayed add of the item can wait: nothing waits at all, or the entry
   * was made from the waiting room's add of the item and no delayed add of it came since
   * ({@link Entry#mayHaveDelayedAdd}). Such a {@code done} takes effect where it read that. A
   * delayed add of the item that lands before its compare-and-set either only waits, as it
   * would after this {@code done}, or is added at once (a delay of 0 or less) or promoted (it
   * fell due, and a take, a count or an operation on the item moved it), which holds a new
   * round on the entry ({@link Entry#tryHold}) and so makes the compare-and-set fail: the
   * {@code done} then takes the lock.
   */
  void done(T item) {
    Entry<T> seen = null;
    if (lockFreeDone) {
      boolean nothingWaits = !anyWaiting;
      seen = entries.get(item);
      if (seen != null && (nothingWaits || !seen.mayHaveDelayedAdd())
          && seen.tryRetire()) { // processing and not added since: it leaves
        entries.remove(item, seen);
        if (shuttingDown) { // read after the removal: a drain that missed it sees this signal
          shutdown.lockAndSignalIfDrained();
        }
        return;
      }
    }
    doneLocked(item, seen);
  }

  /**
   * {@link #done} under the lock: it queues a HELD entry, and warns of an unpaired done. {@code
   * seen} is the item's entry as {@link #done} read it, or null: one not retired is still the
   * map's (an entry leaves the map only retired), so the map is not asked again.
   */
  private void doneLocked(T item, Entry<T> seen) {
    lock.lock();
    try {
      long now = waiting.isEmpty() ? lastNow : readClock();
      promoteDueLocked(item, now);
      if (waiting.isEmpty()) {
        noteNothingWaitsLocked();
      }
      Entry<T> e = seen != null && !seen.isRetired() ? seen : entries.get(item);
      if (e == null || !e.processing || e.ready == Entry.NONE && !e.tryRetire()) {
        warnUnpairedDone(item);
        return;
      }
      e.processing = false;
      if (e.ready == Entry.NONE) { // retired
        entries.remove(item, e);
        order.released(e);
      } else { // HELD: dirty all along (depth and priority unchanged); it joins its line now
        e.ready = Entry.READY;
        order.append(e, orderReadsClock && waiting.isEmpty() ? readClock() : now);
        if (waiters > 0) {
          notEmpty.signal();
        }
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

  // ---- sizes ----

  /** Ready items: not processing (even if re-added), not waiting. */
  int size() {
    lockWithNothingDue();
    try {
      return order.size();
    } finally {
      lock.unlock();
    }
  }

  int waitingCount() {
    lockWithNothingDue();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  // ---- the metrics backstop ----

  /**
   * For a queue with live metrics: makes a clock wake-up due no later than the head's ready
   * time (or {@link DelayWakeup#GRACE_NANOS} after a consumer's last take, if that is later)
   * while items wait and no consumer does, and cancels it when nothing waits. While a consumer
   * waits it leaves an armed wake-up alone (cheaper than cancelling it) and arms none.
   */
  private void armBackstopLocked() {
    if (!backstop) {
      return;
    }
    if (waiting.isEmpty() || shuttingDown) {
      wakeup.cancel();
      return;
    }
    if (leader != null || waiters > 0) {
      return; // the consumers release what falls due
    }
    wakeup.armForHead(waiting.headReadyAt());
  }

  private void onWakeupLocked() {
    if (shuttingDown) {
      return;
    }
    wake(promoteLocked(clock.nanoTime()));
    armBackstopLocked();
  }

  // ---- shutdown ----

  // A shutdown keeps what is due at one clock reading and discards the rest: it promotes in
  // batches until nothing is due at a reading taken in the hold it then shuts down in (Shutdown
  // runs in that one hold, which a drain's wait lets go of).

  void shutDown() {
    lockWithNothingDue();
    try {
      shutdown.shutDown();
    } finally {
      lock.unlock();
    }
  }

  void shutDownWithDrain() throws InterruptedException {
    lockWithNothingDue();
    try {
      shutdown.shutDownWithDrain();
    } finally {
      lock.unlock();
    }
  }

  boolean shutDownWithDrain(java.time.Duration timeout) throws InterruptedException {
    lockWithNothingDue();
    try {
      return shutdown.shutDownWithDrain(timeout);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Once, under the lock, with nothing due ({@link #lockWithNothingDue} in this hold): adds
   * stop, waiting items are discarded, gets wake.
   */
  private void markShuttingDown() {
    if (shuttingDown) {
      return;
    }
    shuttingDown = true;
    if (fifo != null) {
      fifo.close(); // after the flag: an add without the lock that finds it closed sees the flag
    }
    waiting.clear();
    wakeup.cancel();
    metrics.stopped();
    notEmpty.signalAll();
  }

  boolean isShuttingDown() {
    return shuttingDown;
  }

  // ---- for tests ----

  /** Whether producers put new entries in line under the lock ({@link #crowded}). */
  boolean isCrowded() {
    return crowded;
  }

  /** Whether the FIFO's intake holds entries no take has drained yet. */
  boolean intakeHoldsEntries() {
    return intake != null && intake.holdsEntries();
  }

  /** The structures agree with each other. */
  boolean checkInvariants() {
    lock.lock();
    try {
      int ready = order.size(); // drains the FIFO's intake first: its entries join the line
      int queued = 0;
      int held = 0;
      for (Entry<T> e : entries.values()) {
        if (e.isRetired() || (!e.isDirty() && !e.processing)) {
          return false;
        }
        if (e.ready == Entry.READY && e.processing || e.ready == Entry.HELD && !e.processing) {
          return false;
        }
        if (e.stamp() != (e.isDirty() ? e.priority : Entry.NOT_READY)) {
          return false;
        }
        if (e.ready == Entry.READY) {
          queued++;
        } else if (e.ready == Entry.HELD) {
          held++;
        }
      }
      return order.checkInvariants() && waiting.checkInvariants() && ready == queued
          && (!backstop || ready + held == dirty);
    } finally {
      lock.unlock();
    }
  }
}
