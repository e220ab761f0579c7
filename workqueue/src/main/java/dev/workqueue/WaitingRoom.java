package dev.workqueue;

import dev.workqueue.internal.TimeMath;

/**
 * The delayed adds of a queue while they wait, under the queue's lock: the {@link DelayHeap} by
 * ready time, the flag that lets the paths without the lock know whether anything waits, and
 * what a change of the waiting room wakes. Due items leave it through {@link DuePromotion}.
 *
 * <p><b>Wake-ups.</b> A new head (an earlier ready time, or the first item) wakes one waiting
 * consumer to lead for it ({@link Consumers#headChanged}). With live metrics (a named queue),
 * due items must move on time even when no consumer comes, so that its depth and adds are right:
 * the room arms one clock wake-up ({@link DelayWakeup}) for the head's ready time while items
 * wait and no consumer waits (no earlier than {@link DelayWakeup#GRACE_NANOS} after a consumer
 * last took an item: that consumer is likely back before then). A queue without metrics
 * schedules nothing at all.
 */
final class WaitingRoom<T> {
  private final DelayHeap<T> heap;
  private final Consumers consumers;
  /** Null unless the queue's metrics are live. */
  private final DelayWakeup wakeup;
  private final Shutdown shutdown;
  /**
   * True whenever {@link #heap} holds an item: set before an item goes in, cleared when it is
   * seen empty, both under the lock. An add or {@code done} that reads false may skip the lock
   * (no delayed add of its item can be due).
   */
  private volatile boolean mayHoldItems;

  WaitingRoom(DelayHeap<T> heap, Consumers consumers, DelayWakeup wakeup, Shutdown shutdown) {
    this.heap = heap;
    this.consumers = consumers;
    this.wakeup = wakeup;
    this.shutdown = shutdown;
  }

  /** Without the lock: false only if nothing waits. */
  boolean mayHoldItems() {
    return mayHoldItems;
  }

  boolean isEmpty() {
    return heap.isEmpty();
  }

  /** Only when not empty. */
  long headReadyAt() {
    return heap.headReadyAt();
  }

  int size() {
    return heap.size();
  }

  /** Whether a delayed add of {@code item} is due at {@code now}. */
  boolean holdsDue(T item, long now) {
    return !heap.isEmpty() && TimeMath.reached(now, heap.headReadyAt()) && heap.isDue(item, now);
  }

  /**
   * A delayed add of {@code item} at {@code priority}, ready at {@code readyAt}: the earlier
   * ready time wins, unless {@code reschedule} sets it either way.
   */
  void add(T item, int priority, long readyAt, boolean reschedule) {
    if (!mayHoldItems) {
      mayHoldItems = true;
    }
    boolean empty = heap.isEmpty();
    long oldHead = empty ? 0 : heap.headReadyAt();
    if (reschedule) {
      heap.schedule(item, readyAt, priority);
    } else if (empty || readyAt - oldHead < 0) {
      heap.offerEarliest(item, readyAt, priority); // a new head
    } else {
      heap.offerEarliestDeferred(item, readyAt, priority); // behind the head: no change
      return;
    }
    if (empty || heap.isEmpty() || heap.headReadyAt() != oldHead) {
      if (!consumers.headChanged()) {
        changed();
      }
    }
  }

  /** Takes a waiting add of {@code item} out: its priority, or {@link DelayHeap#ABSENT}. */
  long takeOut(T item) {
    long p = heap.removeReturningPayload(item);
    if (p != DelayHeap.ABSENT) {
      changed();
    }
    return p;
  }

  /** Removes a waiting add of {@code item}; whether there was one. */
  boolean remove(T item) {
    if (!heap.remove(item)) {
      return false;
    }
    changed();
    return true;
  }

  /**
   * The room changed other than by a new head: with live metrics, arms the clock wake-up for the
   * head while items wait and no consumer does, and cancels it when nothing waits. While a
   * consumer waits it leaves an armed wake-up alone (cheaper than cancelling it) and arms none.
   */
  void changed() {
    if (wakeup == null) {
      return;
    }
    if (heap.isEmpty() || shutdown.isShuttingDown()) {
      wakeup.cancel();
    } else if (!consumers.anyWaitingOrLeading()) {
      wakeup.armForHead(heap.headReadyAt());
    }
  }

  /** Clears the flag if the room is empty. */
  void noteIfEmpty() {
    if (heap.isEmpty() && mayHoldItems) {
      mayHoldItems = false;
    }
  }

  /** After a consumer took an item at {@code now}: the metrics wake-up waits a grace for it. */
  void tookAt(long now) {
    if (wakeup != null && !heap.isEmpty()) {
      wakeup.tookAt(now);
    }
  }

  /**
   * At the end of a take (or a wait for one): while items wait and no consumer leads, the lead
   * goes to a waiting consumer (unless this take {@code signalled} one), or the metrics wake-up
   * is armed.
   */
  void afterTake(boolean signalled) {
    if (heap.isEmpty()) {
      noteIfEmpty();
    } else if (!consumers.hasLeader() && !consumers.handLeadOver(signalled)) {
      changed();
    }
  }

  /** At shutdown: the waiting adds are discarded. */
  void clear() {
    heap.clear();
    if (wakeup != null) {
      wakeup.cancel();
    }
  }

  boolean checkInvariants() {
    return heap.checkInvariants();
  }
}
