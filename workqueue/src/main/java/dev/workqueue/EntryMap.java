package dev.workqueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The queue's item-to-entry map: a concurrent hash map whose nodes are the entries themselves
 * ({@link Entry#mapNext}, {@link Entry#mapHash}), for the few operations the engine needs.
 * Against a {@code ConcurrentHashMap} it saves, per item, the map's node (32 bytes), the
 * lock of the bin on every removal and most of the size counter's work: on one thread, an add,
 * take and {@code done} took 48 ns against 64 with a {@code ConcurrentHashMap} (JMH,
 * 2026-11-25, 4 interleaved forks each).
 *
 * <p><b>Bins.</b> A power-of-two table of bins, each the head of a chain linked through {@link
 * Entry#mapNext}. Reads take no lock and never wait, except for a bin that a resize is moving
 * at that moment. An insert pushes its entry at the head of the chain with one compare-and-set,
 * after a scan of the chain found no entry of its item. A removal of an entry alone in its bin
 * is one compare-and-set too; every other removal, and every replacement, holds the bin's
 * stripe lock, so that only one thread at a time changes the links inside a chain (a push only
 * ever changes the head). Two facts make the lock-free paths safe: a node's {@code mapNext}
 * changes only under the lock, and a node whose {@code mapNext} is null never gets a
 * successor (pushes go in front).
 *
 * <p><b>Resizing.</b> At three quarters full (the count is a {@link LongAdder}, read only on an
 * insert into a bin that already holds a node) one inserter doubles the table: bin by bin,
 * under the bin's stripe lock, it swaps the head for {@link #MOVING}, relinks the chain's nodes
 * into their two bins of the next table, and marks the old bin {@link #FORWARD}. Operations
 * that meet {@code FORWARD} go on in the next table, where that bin is complete; operations
 * that meet {@code MOVING} wait the few steps until it is {@code FORWARD}. A read that found
 * nothing looks at its bin's head again: if a resize began relinking the chain meanwhile, it
 * may have missed a node, and reads again in the next table.
 *
 * <p><b>User code.</b> The item's {@code hashCode} runs once, before anything changes, and its
 * {@code equals} only while scanning a chain, before the one compare-and-set that makes the
 * change: if either throws, the map has not changed. Removals, replacements and resizes call
 * no user code (they compare entries by identity and use the stored hash).
 *
 * <p><b>The count</b> is a {@link LongAdder}: an insert counts itself in before its
 * compare-and-set (and out again if its entry did not go in), a removal after it, so that an
 * entry is never in the map uncounted. A caller that must not miss the map becoming empty
 * looks again after an insert that left nothing in (the queue's drain does). A sum read while
 * others change the count may still be off by what they do meanwhile (it reads one cell after
 * another), so {@link #isEmpty} confirms a sum of 0 by looking at the bins.
 *
 * <p>Items with many equal hash codes make long chains, and operations on them cost a step
 * per node (a {@code ConcurrentHashMap} can order such a bin as a tree if the items are
 * comparable; this map does not).
 */
final class EntryMap<T> {
  private static final int MIN_CAPACITY = 16;
  private static final int MAX_CAPACITY = 1 << 30;
  /** The most stripe locks a table has: a removal that needs one holds it for a chain walk. */
  private static final int MAX_STRIPES = 64;

  /** A bin whose chain a resize is relinking into the next table. */
  @SuppressWarnings("rawtypes")
  static final Entry MOVING = new Entry<>("(moving)", 0);
  /** A bin that a resize has moved: its nodes are in the next table. */
  @SuppressWarnings("rawtypes")
  static final Entry FORWARD = new Entry<>("(forward)", 0);

  private static final VarHandle BIN = MethodHandles.arrayElementVarHandle(Entry[].class);
  private static final VarHandle LOCK = MethodHandles.arrayElementVarHandle(int[].class);
  private static final VarHandle RESIZING;

  static {
    try {
      RESIZING = MethodHandles.lookup().findVarHandle(EntryMap.class, "resizing", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One table: its bins and their stripe locks, and the table a resize moves it into. */
  private static final class Table<T> {
    final Entry<T>[] bins;
    final int[] locks;
    /** Set before the first bin is marked {@link #MOVING}; read after a {@link #FORWARD}. */
    volatile Table<T> next;

    @SuppressWarnings("unchecked")
    Table(int capacity) {
      bins = (Entry<T>[]) new Entry[capacity];
      locks = new int[Math.min(capacity, MAX_STRIPES)];
    }
  }

  private volatile Table<T> table;
  private final LongAdder count = new LongAdder();
  @SuppressWarnings("unused") // through RESIZING
  private volatile int resizing;

  EntryMap() {
    this(MIN_CAPACITY);
  }

  /** For tests: a map whose first table has {@code capacity} bins (a power of two), to resize soon. */
  EntryMap(int capacity) {
    if (capacity < 1 || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
    }
    table = new Table<>(capacity);
  }

  /** The spread hash of {@code item} (its {@code hashCode} may throw: nothing has changed). */
  static int hash(Object item) {
    int h = item.hashCode();
    return h ^ (h >>> 16);
  }

  /** The live entry of {@code item}, or null. */
  Entry<T> get(T item) {
    int h = hash(item);
    Table<T> t = table;
    while (true) {
      Entry<T>[] bins = t.bins;
      int i = h & (bins.length - 1);
      Entry<T> head = binAt(bins, i);
      if (head == FORWARD) {
        t = t.next;
        continue;
      }
      if (head == MOVING) {
        awaitMoved(bins, i);
        continue;
      }
      Entry<T> e = scan(head, item, h);
      if (e != null || !relinked(bins, i)) { // else a resize may have cut the chain under it
        return e;
      }
    }
  }

  /**
   * Puts {@code fresh} in the map as {@code item}'s entry unless the map holds one: returns that
   * one, or null if {@code fresh} went in.
   */
  Entry<T> putIfAbsent(T item, Entry<T> fresh) {
    int h = hash(item);
    fresh.mapHash = h;
    Table<T> t = table;
    boolean counted = false;
    try {
      while (true) {
        Entry<T>[] bins = t.bins;
        int i = h & (bins.length - 1);
        Entry<T> head = binAt(bins, i);
        if (head == FORWARD) {
          t = t.next;
          continue;
        }
        if (head == MOVING) {
          awaitMoved(bins, i);
          continue;
        }
        Entry<T> e = scan(head, item, h);
        if (e != null) {
          return e;
        }
        if (head != null && t.next == null && needsResize(bins.length)) {
          t = resize(t); // before the insert: a failure to allocate changes nothing
          continue;
        }
        if (!counted) {
          count.increment();
          counted = true;
        }
        fresh.linkMapNext(head); // published by the compare-and-set
        if (BIN.compareAndSet(bins, i, head, fresh)) {
          counted = false;
          return null;
        }
      }
    } finally {
      if (counted) { // not inserted: an entry of the item was found, or something threw
        count.decrement();
      }
    }
  }

  /**
   * Replaces {@code old}, {@code item}'s entry, with {@code fresh} in one step (no reader sees
   * neither): false if {@code old} is no longer in the map.
   */
  boolean replace(T item, Entry<T> old, Entry<T> fresh) {
    fresh.mapHash = old.mapHash;
    return unlink(old, fresh);
  }

  /** Removes {@code e} if it is in the map: false if it is not. */
  boolean remove(Entry<T> e) {
    if (unlink(e, null)) {
      count.decrement();
      return true;
    }
    return false;
  }

  /**
   * Whether no entry is in the map: the count says 0, and a look at every bin finds no entry
   * (an entry that stays in the map while this runs is found; the scan runs only when the
   * count says 0).
   */
  boolean isEmpty() {
    return count.sum() <= 0 && visitAll(e -> false);
  }

  /** Each entry in the map (for invariant checks: not while others change the map). */
  void forEach(Consumer<Entry<T>> action) {
    visitAll(e -> {
      action.accept(e);
      return true;
    });
  }

  /** Visits every entry until {@code visit} answers false: true if it never did. */
  private boolean visitAll(Predicate<Entry<T>> visit) {
    Table<T> t = table;
    for (int i = 0; i < t.bins.length; i++) {
      if (!visitBin(t, i, visit)) {
        return false;
      }
    }
    return true;
  }

  private boolean visitBin(Table<T> t, int i, Predicate<Entry<T>> visit) {
    Entry<T> head = binAt(t.bins, i);
    if (head == MOVING) {
      awaitMoved(t.bins, i);
      head = binAt(t.bins, i);
    }
    if (head == FORWARD) { // bin i moved to bins i and i + old capacity of the next table
      return visitBin(t.next, i, visit) && visitBin(t.next, i + t.bins.length, visit);
    }
    for (Entry<T> e = head; e != null; e = e.mapNext()) {
      if (!visit.test(e)) {
        return false;
      }
    }
    return true;
  }

  // ---- removal and replacement ----

  /**
   * Takes {@code e} out of its chain, putting {@code replacement} in its place if not null:
   * false if {@code e} is not in the map.
   */
  private boolean unlink(Entry<T> e, Entry<T> replacement) {
    int h = e.mapHash;
    Table<T> t = table;
    while (true) {
      Entry<T>[] bins = t.bins;
      int i = h & (bins.length - 1);
      Entry<T> head = binAt(bins, i);
      if (head == FORWARD) {
        t = t.next;
        continue;
      }
      if (head == MOVING) {
        awaitMoved(bins, i);
        continue;
      }
      if (head == null) {
        return false;
      }
      if (head == e && replacement == null && e.mapNext() == null) {
        // Alone in its bin, and it stays without a successor: no lock is needed.
        if (BIN.compareAndSet(bins, i, e, null)) {
          return true;
        }
        continue;
      }
      int stripe = i & (t.locks.length - 1);
      lockStripe(t, stripe);
      try {
        head = binAt(bins, i);
        if (head == FORWARD || head == MOVING) {
          continue; // moved before this thread had the lock (it cannot be moving under it)
        }
        return unlinkLocked(bins, i, head, e, replacement);
      } finally {
        unlockStripe(t, stripe);
      }
    }
  }

  /** Under bin {@code i}'s stripe lock: {@link #unlink} in a chain that no resize moves now. */
  private static <T> boolean unlinkLocked(Entry<T>[] bins, int i, Entry<T> head, Entry<T> e,
      Entry<T> replacement) {
    Entry<T> after = e.mapNext();
    if (replacement != null) {
      replacement.linkMapNext(after); // published by the head's CAS or the predecessor's store
    }
    Entry<T> in = replacement != null ? replacement : after;
    if (head == e) {
      if (BIN.compareAndSet(bins, i, e, in)) {
        return true;
      }
      head = binAt(bins, i); // pushes went in front of it; no one else unlinks under the lock
    }
    for (Entry<T> pred = head; pred != null; pred = pred.mapNext()) {
      if (pred.mapNext() == e) {
        pred.relinkMapNext(in);
        return true;
      }
    }
    return false;
  }

  // ---- resizing ----

  private boolean needsResize(int capacity) {
    return capacity < MAX_CAPACITY && count.sum() >= capacity - (capacity >>> 2);
  }

  /**
   * Moves {@code t} into a table twice its size, if no other thread is resizing: returns the
   * table to go on in (the next one, or {@code t} while another thread moves it).
   */
  private Table<T> resize(Table<T> t) {
    if (!RESIZING.compareAndSet(this, 0, 1)) {
      Thread.yield(); // another thread is moving the table; its bins forward when moved
      return table;
    }
    try {
      if (table != t || t.next != null) {
        return table;
      }
      Entry<T>[] old = t.bins;
      Table<T> next = new Table<>(old.length << 1);
      t.next = next;
      for (int i = 0; i < old.length; i++) {
        moveBin(t, next, i);
      }
      table = next;
      return next;
    } finally {
      RESIZING.setVolatile(this, 0);
    }
  }

  /**
   * Moves bin {@code i} of {@code t} into bins {@code i} and {@code i + old capacity} of {@code
   * next}, keeping the chain's order, under its stripe lock (no removal relinks it meanwhile).
   */
  @SuppressWarnings("unchecked")
  private static <T> void moveBin(Table<T> t, Table<T> next, int i) {
    Entry<T>[] bins = t.bins;
    int stripe = i & (t.locks.length - 1);
    lockStripe(t, stripe);
    try {
      Entry<T> head;
      do { // pushes may still change the head until it is MOVING
        head = binAt(bins, i);
      } while (!BIN.compareAndSet(bins, i, head, (Entry<T>) MOVING));
      Entry<T> loHead = null;
      Entry<T> loTail = null;
      Entry<T> hiHead = null;
      Entry<T> hiTail = null;
      int bit = bins.length;
      for (Entry<T> e = head; e != null; ) {
        Entry<T> after = e.mapNext();
        if ((e.mapHash & bit) == 0) {
          if (loTail == null) {
            loHead = e;
          } else {
            loTail.relinkMapNext(e);
          }
          loTail = e;
        } else {
          if (hiTail == null) {
            hiHead = e;
          } else {
            hiTail.relinkMapNext(e);
          }
          hiTail = e;
        }
        e = after;
      }
      if (loTail != null) {
        loTail.relinkMapNext(null);
      }
      if (hiTail != null) {
        hiTail.relinkMapNext(null);
      }
      BIN.setRelease(next.bins, i, loHead); // seen by others only after the FORWARD below
      BIN.setRelease(next.bins, i + bins.length, hiHead);
      BIN.setVolatile(bins, i, (Entry<T>) FORWARD);
    } finally {
      unlockStripe(t, stripe);
    }
  }

  // ---- helpers ----

  @SuppressWarnings("unchecked")
  private static <T> Entry<T> binAt(Entry<T>[] bins, int i) {
    return (Entry<T>) BIN.getVolatile(bins, i);
  }

  /** The entry of {@code item} in the chain from {@code head}, or null (calls its equals). */
  private static <T> Entry<T> scan(Entry<T> head, T item, int h) {
    for (Entry<T> e = head; e != null; e = e.mapNext()) {
      if (e.mapHash == h && (e.item == item || item.equals(e.item))) {
        return e;
      }
    }
    return null;
  }

  /**
   * After a scan of bin {@code i} that found nothing: whether a resize began relinking the
   * chain since (its head is no longer a node or null), so that the scan may have missed a
   * node and must look again.
   */
  private static <T> boolean relinked(Entry<T>[] bins, int i) {
    Entry<T> head = binAt(bins, i);
    return head == MOVING || head == FORWARD;
  }

  /** Waits while a resize moves bin {@code i} (a few steps, unless its thread is descheduled). */
  private static <T> void awaitMoved(Entry<T>[] bins, int i) {
    for (int spins = 0; binAt(bins, i) == MOVING; spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  private static void lockStripe(Table<?> t, int stripe) {
    for (int spins = 0; !LOCK.compareAndSet(t.locks, stripe, 0, 1); spins++) {
      if (spins < 64) {
        Thread.onSpinWait();
      } else {
        Thread.yield();
      }
    }
  }

  private static void unlockStripe(Table<?> t, int stripe) {
    LOCK.setRelease(t.locks, stripe, 0);
  }
}
