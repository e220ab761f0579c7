package dev.workqueue;

import dev.workqueue.internal.TimeMath;

/**
 * The release of due items from the waiting room into the ready order, under the queue's lock.
 * Nothing runs on a timer to do it (as in {@link java.util.concurrent.DelayQueue}): the
 * consumers do it as they take, and every operation on an item first releases that item if it
 * is due.
 *
 * <p><b>FIFO: due items are merged, not moved.</b> The FIFO order is sorted by the time each
 * entry became ready, and the waiting room by ready time, so a take hands out whichever of the
 * two heads became ready first ({@link #takeDue}): a due item leaves the waiting room only when it
 * is handed out, or when an operation on that very item needs it queued ({@link #releaseFor}). A
 * million items falling due at once get their entries one by one as consumers take them, so the
 * garbage they make dies young, and an {@code add} on another thread waits for no promotion at
 * all. What is moved in before a take reaches it (by a count, a shutdown, an operation on the
 * item, a metrics wake-up) keeps its ready time, in the FIFO's due line ({@link
 * ReadyOrder#appendDue}), so it is still handed out before items added after it fell due.
 *
 * <p><b>Priority and fair orders: bounded promotion.</b> Their order is not by time, so every
 * operation first promotes what is due into the order, at most {@link #BATCH} items per hold of
 * the lock ({@link #promoteBatch}): the first due item is handed out without waiting for the
 * rest.
 *
 * <p>A due item counts as added at its ready time: merged if its item is dirty, held if it is
 * processing ({@link Rounds#newRound}). Its {@code equals}, {@code hashCode} or fair dimension
 * may throw here, on a thread that did not add it: that is logged and counted ({@link
 * HookGuard}), and the item is dropped rather than thrown at a consumer.
 */
final class DuePromotion<T> {
  /** The most due items moved into the ready order under one hold of the lock. */
  static final int BATCH = 64;

  /** How a due item joins the queue: {@link QueueEngine}'s new round. */
  interface Rounds<T> {
    /**
     * The add of {@code item}, ready since {@code readySince}, into its live entry or {@code
     * fresh}; {@code handOut}: not into the order but still {@link Entry#FRESH}, for the caller
     * to hand out at once. Returns {@code fresh} if it was made ready, else null (merged or
     * held). May throw from the item's {@code equals}: then nothing has changed.
     */
    Entry<T> newRound(T item, int priority, Entry<T> fresh, long readySince, boolean handOut);
  }

  private final DelayHeap<T> waiting;
  private final ReadyOrder<T> order;
  /** The order, if FIFO; else null. */
  private final FifoOrder<T> fifo;
  private final Rounds<T> rounds;
  private final Consumers consumers;
  /** The waiting room changed other than by a new head ({@link WaitingRoom#changed}). */
  private final Runnable waitingChanged;
  private final HookGuard guard;
  /** Null unless the queue is traced: a due add's trail moves with it. */
  private final Trails<T> trails;

  DuePromotion(DelayHeap<T> waiting, ReadyOrder<T> order, Rounds<T> rounds, Consumers consumers,
      Runnable waitingChanged, HookGuard guard, Trails<T> trails) {
    this.waiting = waiting;
    this.order = order;
    this.fifo = order instanceof FifoOrder<T> f ? f : null;
    this.rounds = rounds;
    this.consumers = consumers;
    this.waitingChanged = waitingChanged;
    this.guard = guard;
    this.trails = trails;
  }

  /** Whether the waiting room's head is due at {@code now}. */
  boolean anyDue(long now) {
    return !waiting.isEmpty() && TimeMath.reached(now, waiting.headReadyAt());
  }

  /** Whether this order takes due items by time ({@link #takeDue}) rather than by batches. */
  boolean mergesByTime() {
    return fifo != null;
  }

  /**
   * Before an operation on {@code item}: what is due counts as added at its ready time. The
   * priority and fair orders promote a batch of due items; the FIFO order moves only {@code
   * item}, if a delayed add of it is due (the others are merged in by the takes).
   */
  void releaseFor(T item, long now) {
    if (!anyDue(now)) {
      return;
    }
    if (fifo == null) {
      consumers.wake(promoteBatch(now));
    } else if (waiting.isDue(item, now)) {
      long readyAt = waiting.readyAtOf(item);
      waiting.remove(item);
      if (promote(item, 0, readyAt)) {
        consumers.wake(1);
      }
    }
  }

  /**
   * Moves up to {@link #BATCH} items due at {@code now} into the ready order, in ready-time
   * order. Returns how many joined the ready order (the caller wakes consumers for them).
   */
  int promoteBatch(long now) {
    if (!anyDue(now)) {
      return 0;
    }
    int joined = 0;
    int n = 0;
    do {
      long readyAt = waiting.headReadyAt();
      int priority = waiting.headPayload();
      if (promote(waiting.poll(), priority, readyAt)) {
        joined++;
      }
    } while (++n < BATCH && anyDue(now));
    if (waiting.isEmpty()) {
      waitingChanged.run(); // the metrics wake-up is cancelled
    }
    return joined;
  }

  /** Adds {@code item}, just taken out of the waiting room; whether it joined the order. */
  private boolean promote(T item, int priority, long readyAt) {
    Entry<T> fresh;
    try {
      fresh = order.newEntry(item, priority); // the fair order's dimension
    } catch (RuntimeException ex) {
      guard.failed("promoting a due item (its dimension)", ex);
      return false;
    }
    try {
      boolean joined = rounds.newRound(item, priority, fresh, readyAt, false) != null;
      Trails.promoted(trails, item);
      return joined;
    } catch (RuntimeException ex) { // the item's equals or hashCode
      guard.failed("promoting a due item (its equals or hashCode)", ex);
      return false;
    }
  }

  /**
   * FIFO: the entry of the due item that became ready before the FIFO's head (or any due item
   * if the FIFO is empty), taken out of the waiting room, ready and about to be handed out; null
   * if the FIFO's head comes first. Due items already dirty merge on the way (at most a batch of
   * them per call).
   */
  Entry<T> takeDue(long now) {
    for (int n = 0; n < BATCH; n++) {
      if (!anyDue(now)
          || (fifo.size() > 0 && waiting.headReadyAt() - fifo.headReadySince() >= 0)) {
        return null;
      }
      long readyAt = waiting.headReadyAt();
      T item = waiting.poll();
      Entry<T> fresh = fifo.newEntry(item, 0);
      fresh.noteMadeFromWaitingRoom(); // the waiting room held one add of the item: this one
      try {
        Entry<T> e = rounds.newRound(item, 0, fresh, readyAt, true);
        Trails.promoted(trails, item);
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
   * A delayed add of {@code item}, which is about to be handed out, that is due now fell due
   * while the item was queued (or before it was, when nothing held it): client-go merges it into
   * this round, so it must not make another round at the item's {@code done}.
   */
  void mergeDueAdd(T item, long now) {
    if (!anyDue(now)) {
      return;
    }
    try {
      if (waiting.isDue(item, now)) {
        waiting.remove(item);
        Trails.promoted(trails, item); // into the round about to be handed out
        waitingChanged.run();
      }
    } catch (RuntimeException ex) { // the item's equals or hashCode: hand it out anyway
      guard.failed("merging a due add of an item handed out (its equals or hashCode)", ex);
    }
  }
}
