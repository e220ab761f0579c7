package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What a queue knows about one item that is dirty or processing: client-go's {@code dirty} and
 * {@code processing} sets in one object, and the link of the item's ready line. Items that only
 * wait for a delay have no entry: the {@link DelayHeap} holds them by themselves.
 *
 * <pre>
 *   ready    processing   where the item is                         dirty
 *   NONE     yes          handed out, not added since               no
 *   READY    no           in its ready line ({@link ReadyOrder})    yes
 *   HELD     yes          handed out and added since: in line at done yes
 * </pre>
 *
 * An entry that is neither ready nor processing is <em>retired</em> ({@link #RETIRED}) and leaves
 * the queue's map; a later add of the item makes a fresh one. Guarded by the queue's lock except
 * {@link #stamp}.
 *
 * <p><b>The stamp and the merged add.</b> {@link #stamp} is the entry's priority while it is
 * READY or HELD and {@link #NOT_READY} otherwise. An add of an item whose stamp is at least the
 * add's priority changes nothing, so it takes no lock: it compare-and-sets the stamp to the
 * value it read. That write is what makes the producer's earlier actions visible to the worker:
 * every later write of the stamp, under the lock or not, and the {@code getAndSet} that hands
 * the round out, are atomic read-modify-writes that read the latest write, so each
 * synchronizes with the merged add before it. (The two plain stores, both of a {@link #FRESH}
 * entry under the lock, come before any merge can succeed, as a merge of a fresh entry waits
 * for its first write: a new entry's first publication, {@link #publishNewRound}, and the
 * hand-out of an entry made from the waiting room, {@link #handOutFresh}, after which no merge
 * succeeds at all until a locked add holds a new round.) If the round was handed out
 * between the producer's read and its compare-and-set, the stamp has changed, the CAS fails,
 * and the add takes the lock instead.
 */
class Entry<T> {
  static final byte NONE = 0;
  static final byte READY = 1;
  static final byte HELD = 2;

  /**
   * {@link #stamp} of an entry that is processing and not dirty (the only state its {@code
   * done} may end without the lock); the three stamps that are not a priority are below every
   * priority, so no add merges into them.
   */
  static final long NOT_READY = Long.MIN_VALUE;
  /** {@link #stamp} of an entry whose last round is done: it has left, or is leaving, the map. */
  static final long RETIRED = Long.MIN_VALUE + 1;
  /** {@link #stamp} of an entry not yet ready: made, perhaps put in the map, not yet published. */
  static final long FRESH = Long.MIN_VALUE + 2;

  private static final VarHandle STAMP;
  private static final VarHandle NO_DELAYED_ADD;

  static {
    try {
      STAMP = MethodHandles.lookup().findVarHandle(Entry.class, "stamp", long.class);
      NO_DELAYED_ADD =
          MethodHandles.lookup().findVarHandle(Entry.class, "noDelayedAdd", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final T item;
  /** The pending round's priority; while only processing, the priority it was handed out at. */
  int priority;
  byte ready;
  boolean processing;
  /**
   * The priority the item was handed out at: written by the take, read by the taking thread
   * after it (stable until the item's {@code done}, as nobody else can take it meanwhile).
   */
  int takenPriority;
  /**
   * When the item became ready, on the queue's clock: the FIFO order is sorted by it (so the
   * queue can merge due delayed items into it by time), the priority order's aging reads it.
   */
  long readySince;
  /** The next entry in a FIFO line (the FIFO and fair orders link through it). */
  Entry<T> behind;
  /**
   * True while no delayed add of the item can be waiting, so that its {@code done} need not
   * look at the waiting room: set on an entry that a take made from the waiting room (which
   * holds one add per item, and that one was taken), cleared for good, under the lock, by a
   * delayed add of the item while the entry lives ({@link #noteDelayedAdd}). Read without the
   * lock by {@code done} ({@link #mayHaveDelayedAdd}).
   */
  @SuppressWarnings("unused") // through NO_DELAYED_ADD
  private boolean noDelayedAdd;

  @SuppressWarnings("unused") // through STAMP
  private volatile long stamp;

  Entry(T item, int priority) {
    this.item = item;
    this.priority = priority;
    // A plain store, not the volatile one an initializer would make (a full fence on x86, on
    // every new entry): no thread can see the entry before it is published, through the map,
    // the intake or the lock, and each of those orders this store before it.
    STAMP.set(this, FRESH);
  }

  final boolean isDirty() {
    return ready != NONE;
  }

  /**
   * The lock-free merge of an add at {@code priority}: true if the item is READY or HELD at that
   * priority or higher, and the merge was published (see the class comment). An entry another
   * add is still publishing ({@link #FRESH}) is waited for here, without the queue's lock.
   */
  final boolean tryMerge(int priority) {
    long s = (long) STAMP.getVolatile(this);
    if (s == FRESH) { // another add is about to publish it: wait here, not under the lock
      awaitPublished();
      s = (long) STAMP.getVolatile(this);
    }
    return s >= priority && STAMP.compareAndSet(this, s, s);
  }

  /**
   * Under the lock, on an entry made from the waiting room's add of the item, before it is in
   * the map: no delayed add of the item waits (the waiting room held one, and it was taken).
   */
  final void noteMadeFromWaitingRoom() {
    NO_DELAYED_ADD.set(this, true); // published with the entry, through the map and the lock
  }

  /**
   * Under the lock, before a delayed add of the item goes into the waiting room: its {@code
   * done} must look there. A volatile write: a {@code done} that reads the flag still set
   * ({@link #mayHaveDelayedAdd}) comes before this add in the order of the two, so it may end
   * the round as though this add came after it (the add only waits, and when due makes a new
   * round then).
   */
  final void noteDelayedAdd() {
    if ((boolean) NO_DELAYED_ADD.get(this)) {
      NO_DELAYED_ADD.setVolatile(this, false);
    }
  }

  /** Without the lock, by {@code done}: whether a delayed add of the item may wait. */
  final boolean mayHaveDelayedAdd() {
    return !(boolean) NO_DELAYED_ADD.getVolatile(this);
  }

  /**
   * Under the lock, for a {@link #FRESH} entry made from the waiting room and handed out in the
   * same hold of the lock, without joining the order: it goes from fresh to processing in one
   * release store. No merge can have been published into it (a merge waits while the entry is
   * fresh, then finds it processing and takes the lock) and only the lock holder writes a fresh
   * stamp made under the lock, so there is nothing to read.
   */
  final void handOutFresh() {
    STAMP.setRelease(this, NOT_READY);
  }

  /** Under the lock: makes the stamp agree with {@link #ready} and {@link #priority}. */
  final void publish() {
    STAMP.getAndSet(this, ready != NONE ? (long) priority : NOT_READY);
  }

  /**
   * Under the lock, for a {@link #FRESH} entry that becomes dirty and joins the line under the
   * lock: no merged add can be pending on a stamp that is not a priority (its compare-and-set
   * needs a ready one), and no take can reach the entry before the lock is released, so nothing
   * else changes this fresh stamp, there is nothing to read and a release store does; the take
   * that ends this round still reads with {@code getAndSet}.
   */
  final void publishNewRound() {
    STAMP.setRelease(this, (long) priority);
  }

  /**
   * Without the lock, for a {@link #FRESH} entry a producer has just pushed onto the FIFO's
   * intake ({@link FifoOrder.Intake#offer}): its round is published at {@code priority}, unless a
   * consumer took the entry from the intake first (its take wrote the stamp; nothing to do
   * then). A compare-and-set, as the take may race it.
   */
  final void publishOffered(int priority) {
    STAMP.compareAndSet(this, FRESH, (long) priority);
  }

  /**
   * Without the lock, for a {@link #FRESH} entry whose push onto the intake failed (the queue
   * shut down): it never joined the queue and leaves the map. No consumer can reach it; a
   * producer waiting for it to be published ({@link #awaitPublished}) sees it retired.
   */
  final void retireUnoffered() {
    STAMP.setVolatile(this, RETIRED);
  }

  /**
   * Waits while the entry is {@link #FRESH}, which, seen by another thread, means another add
   * is between putting it in the map and publishing it, without the lock or under it (a few
   * instructions that wait for nothing). The volatile read that ends the wait makes that add's
   * writes visible. Called by a lock-free merge ({@link #tryMerge}), so that an add waits here
   * rather than under the lock, and under the lock by the locked add path.
   */
  final void awaitPublished() {
    for (int spins = 0; (long) STAMP.getVolatile(this) == FRESH; spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield(); // the producer was descheduled between its two steps
      }
    }
  }

  /**
   * Under the lock, for an entry that is processing and not dirty: a new round at {@code
   * priority}, held until done. False if the entry's {@code done} retired it meanwhile (it takes
   * no lock): the item is then new to the queue.
   */
  final boolean tryHold(int priority) {
    return STAMP.compareAndSet(this, NOT_READY, (long) priority);
  }

  /**
   * The end of a round that was handed out and not added since: true if the entry was
   * processing and not dirty, and is retired now. With or without the lock: an add that makes
   * it HELD at the same moment ({@link #tryHold}) and this retirement exclude each other.
   */
  final boolean tryRetire() {
    return STAMP.compareAndSet(this, NOT_READY, RETIRED);
  }

  final boolean isRetired() {
    return (long) STAMP.getVolatile(this) == RETIRED;
  }

  /** The stamp as published; for invariant checks. */
  final long stamp() {
    return (long) STAMP.getVolatile(this);
  }

  @Override
  public final String toString() {
    return item + "@" + priority;
  }
}
