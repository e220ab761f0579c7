package dev.workqueue;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The add of a new item without the queue's lock: chosen by the builder for a FIFO queue without
 * metrics (which count under the lock) and without supersede (whose add must look at the waiting
 * room), and used by the engine while nothing waits for a delay and one thread takes ({@link
 * CrowdWindow}; while more take, adds take the lock).
 *
 * <p>A fresh READY entry goes into the map unpublished ({@link Entry#FRESH}), onto the FIFO's
 * lock-free intake ({@link FifoOrder.Intake#offer}), which the next locked operation on the line
 * drains, and is then published. So the producer and the consumer do not contend for the lock. A
 * path that meets the entry in the map before its publication waits for it ({@link
 * Entry#awaitPublished}), which needs no lock. Shutdown closes the intake under the lock, so no
 * such add lands after it.
 */
final class IntakeAdds<T> {
  private final ItemMap<T> entries;
  private final FifoOrder<T> fifo;
  /** The FIFO's intake, held here: producers read no field of the order itself. */
  private final FifoOrder.Intake<T> intake;
  private final Consumers consumers;
  private final Shutdown shutdown;

  IntakeAdds(ItemMap<T> entries, FifoOrder<T> fifo, Consumers consumers, Shutdown shutdown) {
    this.entries = entries;
    this.fifo = fifo;
    this.intake = fifo.intake();
    this.consumers = consumers;
    this.shutdown = shutdown;
  }

  /**
   * An add of an item that has no live entry, its entry READY since {@code readySince}. Returns
   * null when the add is complete (queued, merged, or dropped by a shutdown), else the live entry
   * another add put in the map first, for the locked path to merge into or hold.
   */
  Entry<T> add(T item, long readySince) {
    Entry<T> fresh = fifo.newEntry(item, 0);
    fresh.ready = Entry.READY;
    fresh.readySince = readySince;
    Entry<T> e;
    try {
      e = entries.insert(item, fresh); // the item's hashCode, equals or compareTo may throw
    } catch (RuntimeException | Error t) {
      entries.dropAfterFailedInsert(fresh, t); // perhaps taken in: dropped, it is not in line
      shutdown.recheckDrain();
      throw t;
    }
    if (e != null) {
      return e.tryMerge(0) ? null : e;
    }
    offer(fresh);
    return null;
  }

  private void offer(Entry<T> fresh) {
    int offered = intake.offer(fresh);
    if (offered == FifoOrder.CLOSED_TO_OFFERS) { // the queue shut down after this add read the flag
      entries.dropUnoffered(fresh);
      shutdown.lockAndSignalIfDrained();
      return;
    }
    fresh.publishOffered(0);
    // Only the push onto an empty intake wakes a consumer: a push behind it would find the woken
    // consumer still counted in until it has the lock again, and signal (and contend for the
    // lock) once per item meanwhile. The consumer that drains the batch wakes the next.
    if (offered == FifoOrder.OFFERED_FIRST && consumers.anyWaiting()) {
      consumers.lockAndSignal();
    }
   }
}
