package dev.workqueue;

/**
 * An item's rounds, under the queue's lock: the state machine of its {@link Entry} (READY in
 * line, handed out, HELD until done) and the dirty count that live metrics report. Every add
 * without delay, a due item's included, starts or joins a round here ({@link #newRound}); a take
 * hands one out ({@link #handOut}); a {@code done} ends it ({@link #finish}).
 *
 * <pre>
 *   add, no entry        -> a fresh entry, READY, in line       (or handed out at once)
 *   add, READY or HELD   -> merged: the priority may rise
 *   add, handed out      -> HELD: a new round, in line at done
 *   take                 -> handed out (processing)
 *   done, HELD           -> READY, in line
 *   done, not added since-> retired, out of the map
 * </pre>
 */
final class Rounds<T> implements DuePromotion.Rounds<T> {
  /** How {@link #newRound} puts a new round in line. */
  static final int JOIN_LINE = 0;
  static final int JOIN_DUE = 1;
  static final int HAND_OUT = 2;

  private final ItemMap<T> entries;
  private final ReadyOrder<T> order;
  private final QueueMetrics<T> metrics;
  /** Whether the metrics are live, and {@link #dirty} is kept. */
  private final boolean counted;
  private final Shutdown shutdown;
  /** READY + HELD, kept only for live metrics: otherwise no shared write on every add. */
  private int dirty;

  Rounds(ItemMap<T> entries, ReadyOrder<T> order, QueueMetrics<T> metrics, boolean counted,
      Shutdown shutdown) {
    this.entries = entries;
    this.order = order;
    this.metrics = metrics;
    this.counted = counted;
    this.shutdown = shutdown;
  }

  @Override
  public Entry<T> newRound(T item, int priority, Entry<T> fresh, long readyAt, boolean handOut) {
    return newRound(item, priority, null, fresh, readyAt, handOut ? HAND_OUT : JOIN_DUE);
  }

  /**
   * The core of every add without delay: {@code item}'s live entry {@code e} (or null if it has
   * none) merges the add if dirty, and holds a new round until done if processing; an item
   * without a live entry gets {@code fresh} (made here if null), as {@link #start} says. Returns
   * the fresh entry if one was made ready, else null. The item's {@code equals} may throw from
   * the map: then nothing has changed.
   */
  Entry<T> newRound(T item, int priority, Entry<T> e, Entry<T> fresh, long readySince,
      int join) {
    while (true) {
      if (e == null) {
        if (fresh == null) {
          fresh = order.newEntry(item, priority);
        }
        e = insert(item, fresh);
        if (e == null) {
          return start(fresh, priority, readySince, join);
        }
      }
      if (mergeOrHold(e, priority)) {
        break;
      }
      e = null; // its done retired it meanwhile, or a shutdown dropped it: the item is new
    }
    if (fresh != null) {
      order.released(fresh);
    }
    return null;
  }

  /** {@link ItemMap#insert}; if it throws, {@code fresh} is in no one's sight. */
  private Entry<T> insert(T item, Entry<T> fresh) {
    try {
      return entries.insert(item, fresh); // one map operation for a new item
    } catch (RuntimeException | Error t) {
      entries.dropAfterFailedInsert(fresh, t);
      shutdown.recheckDrain();
      order.released(fresh);
      throw t;
    }
  }

  /**
   * {@code fresh}, just put in the map, is READY since {@code readySince} and, as {@code join}
   * says, in the ready order ({@link #JOIN_LINE}, an add now; {@link #JOIN_DUE}, a due delayed
   * add, which counts as added at its ready time), published and counted; or ({@link #HAND_OUT})
   * still {@link Entry#FRESH} and not counted, for the take that asked for it ({@link
   * #handOut}).
   */
  private Entry<T> start(Entry<T> fresh, int priority, long readySince, int join) {
    fresh.priority = priority;
    fresh.ready = Entry.READY;
    if (join == HAND_OUT) {
      fresh.readySince = readySince; // joins and leaves the order in one step
      return fresh;
    }
    if (join == JOIN_DUE) {
      order.appendDue(fresh, readySince);
    } else {
      order.append(fresh, readySince);
    }
    fresh.publishNewRound();
    countAdded(fresh); // user code: after the entry is published
    return fresh;
  }

  /**
   * An add meets the item's live entry {@code e}: merged if dirty, a new round held until done if
   * processing. False if {@code e} was retired meanwhile (the item is new to the queue).
   */
  private boolean mergeOrHold(Entry<T> e, int priority) {
    e.awaitPublished(); // another thread's add without the lock may be finishing
    if (e.isRetired()) {
      return false;
    }
    if (e.isDirty()) {
      raise(e, priority); // merged into the pending round
      return true;
    }
    if (!e.tryHold(priority)) {
      return false;
    }
    e.priority = priority; // the processing round's priority is over
    e.ready = Entry.HELD;
    countAdded(e);
    return true;
  }

  private void countAdded(Entry<T> e) {
    if (counted) {
      dirty++;
      metrics.added(e.item, dirty, e.priority);
    }
  }

  /** A dirty entry's priority rises to {@code priority}, if that is higher. */
  void raise(Entry<T> e, int priority) {
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

  /**
   * Hands {@code e} out, just polled from the order or, if {@code fresh}, just made from the
   * waiting room (still {@link Entry#FRESH}): it is processing now.
   */
  void handOut(Entry<T> e, boolean fresh) {
    e.ready = Entry.NONE;
    e.processing = true;
    e.takenPriority = e.priority;
    if (fresh) {
      e.handOutFresh(); // no add can have merged into it
      countAdded(e); // its add, reported once it is published, before its take
    } else {
      e.publish(); // reads the stamp's last write: every merged add of this round happens-before
    }
    if (counted) {
      dirty--;
      metrics.taken(e.item, dirty, e.priority);
    }
  }

  /**
   * The entry whose round a {@code done} of {@code item} ends, or null for an unpaired {@code
   * done} (the item is not processing), which changes nothing. {@code seen} is the item's entry
   * as read without the lock, or null: one not retired is still the map's (an entry leaves the
   * map only retired), so the map is not asked again.
   */
  Entry<T> ending(T item, Entry<T> seen) {
    Entry<T> e = seen != null && !seen.isRetired() ? seen : entries.get(item);
    if (e == null || !e.processing || e.ready == Entry.NONE && !e.tryRetire()) {
      return null;
    }
    return e;
  }

  /**
   * Ends {@code e}'s processing round: a retired entry leaves; true if it was HELD, dirty all
   * along (depth and priority unchanged), and must join its line ({@link #requeue}).
   */
  boolean end(Entry<T> e) {
    e.processing = false;
    if (e.ready == Entry.NONE) { // retired
      entries.remove(e);
      order.released(e);
      return false;
    }
    e.ready = Entry.READY;
    return true;
  }

  /** A HELD entry whose round ended joins its line, ready since {@code readySince}. */
  void requeue(Entry<T> e, long readySince) {
    order.append(e, readySince);
  }

  /**
   * For invariant checks: every entry in the map is live, in one of its three states, its stamp
   * as its state says; {@code ready} of them are READY, and the count agrees.
   */
  boolean agreeWith(int ready) {
    int queued = 0;
    int held = 0;
    for (Entry<T> e : entries.entries()) {
      if (!agrees(e)) {
        return false;
      }
      queued += e.ready == Entry.READY ? 1 : 0;
      held += e.ready == Entry.HELD ? 1 : 0;
    }
    return ready == queued && (!counted || ready + held == dirty);
  }

  private static boolean agrees(Entry<?> e) {
    if (e.isRetired() || (!e.isDirty() && !e.processing)) {
      return false;
    }
    if (e.ready == Entry.READY && e.processing || e.ready == Entry.HELD && !e.processing) {
      return false;
    }
    return e.stamp() == (e.isDirty() ? e.priority : Entry.NOT_READY);
  }
}
