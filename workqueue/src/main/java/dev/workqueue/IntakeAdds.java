package dev.workqueue;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The add of a new item without the queue's lock: chosen by the builder for a FIFO queue without
 * metrics (which count under the lock) and without supersede (whose add must look at the waiting
 * room), and used by the engine while nothing waits for a delay.
 *
 * <p>A fresh READY entry goes into the map unpublished ({@link Entry#FRESH}), onto the FIFO's
 * lock-free intake ({@link FifoOrder.Intake#offer}), which the next locked operation on the line
 * drains, and is then published. So producers and consumers do not contend for the lock. While
 * more than one thread takes ({@link CrowdWindow}), the entry joins the line under the lock
 * instead: it goes into the map without the lock, as through the intake, then the add takes the
 * lock to put it in line, and a locked path that meets the entry meanwhile, still unpublished,
 * puts it in line itself ({@link #appendPendingLocked}) instead of waiting for its publication
 * while holding the lock that the add waits for. Shutdown closes the intake under the lock, so no
 * such add lands after it.
 */
final class IntakeAdds<T> {
  private final ReentrantLock lock;
  private final ItemMap<T> entries;
  private final FifoOrder<T> fifo;
  /** The FIFO's intake, held here: producers read no field of the order itself. */
  private final FifoOrder.Intake<T> intake;
  private final Consumers consumers;
  private final Shutdown shutdown;
  private final CrowdWindow crowd;

  IntakeAdds(ReentrantLock lock, ItemMap<T> entries, FifoOrder<T> fifo, Consumers consumers,
      Shutdown shutdown, CrowdWindow crowd) {
    this.lock = lock;
    this.entries = entries;
    this.fifo = fifo;
    this.intake = fifo.intake();
    this.consumers = consumers;
    this.shutdown = shutdown;
    this.crowd = crowd;
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
    boolean viaLock = crowd.isCrowded();
    fresh.appendPending = viaLock; // published to locked paths by the map's insert
    Entry<T> e;
    try {
      e = entries.insert(item, fresh); // the item's hashCode, equals or compareTo may throw
    } catch (RuntimeException | Error t) {
      dropAfterFailedInsert(fresh, viaLock, t);
      throw t;
    }
    if (e != null) {
      return e.tryMerge(0) ? null : e;
    }
    if (viaLock) {
      appendCrowded(fresh);
    } else {
      offer(fresh);
    }
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

  /**
   * The map threw while taking {@code fresh} in, perhaps after it did: unless a locked path met
   * the entry and put it in line already (then it stays), it is dropped.
   */
  private void dropAfterFailedInsert(Entry<T> fresh, boolean viaLock, Throwable t) {
    boolean drop = true;
    if (viaLock) {
      try {
        drop = claimPending(fresh); // false: it is in line already, so it stays
      } catch (RuntimeException | Error again) {
        t.addSuppressed(again); // still pending: the next locked path to meet it puts it in line
        drop = false;
      }
    }
    if (drop) {
      entries.dropAfterFailedInsert(fresh, t);
      shutdown.recheckDrain();
    }
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
   * The end of {@link #add} while consumers are crowded: {@code fresh}, in the map with {@link
   * Entry#appendPending}, joins the line under the lock, unless a locked path that met it did that
   * first, or leaves the map if the queue shut down.
   */
  private void appendCrowded(Entry<T> fresh) {
    boolean closed = false;
    lock.lock();
    try {
      if (fresh.appendPending) {
        if (shutdown.isShuttingDown()) {
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
      entries.dropUnoffered(fresh);
      shutdown.lockAndSignalIfDrained();
    }
  }

  /**
   * Under the lock: puts a crowded add's entry ({@link Entry#appendPending}) in line and
   * publishes it, for its add or for a locked path that met it in the map and must not wait for
   * its publication (the add waits for the lock this path holds).
   */
  void appendPendingLocked(Entry<T> e) {
    e.appendPending = false;
    fifo.append(e, e.readySince);
    e.publishOffered(0);
    consumers.signal();
  }
}
