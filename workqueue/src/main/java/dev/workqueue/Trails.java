package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.trace.CarriedAdd;
import dev.workqueue.trace.HandOut;
import dev.workqueue.trace.QueueTracer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The contexts a traced queue carries from each add of an item to the hand-out of the round
 * that covers it ({@link QueueTracer}); a queue without a tracer has none of this (its engine's
 * field is null, and each hook below is behind a check of it).
 *
 * <p><b>Why the attribution is exact.</b> With a tracer, every add takes effect under the
 * queue's lock (the engine turns its lock-free merge and intake off), and this class is changed
 * only under that lock, in the same hold as the queue state it mirrors, except {@link #deliver},
 * which only reads what a hand-out left for its own thread:
 *
 * <ul>
 *   <li>an add without delay (new, merged into a pending round, or held while the item is
 *       processing) appends its context to the item's <em>pending</em> trail: whatever the
 *       queue does with it, the add is covered by the item's next hand-out, and by no earlier
 *       one, since that one is already over in the lock's order;
 *   <li>a delayed add that waits appends to the item's <em>waiting</em> trail (one per item, as
 *       the waiting room holds one add per item: a second delayed add merges into it);
 *   <li>when the waiting room lets the item's add go as an add (it fell due and was promoted,
 *       merged into a hand-out, or taken out by a superseding add), the waiting trail moves to
 *       the pending one in that same hold ({@link #promoted}); when it discards it (cancel,
 *       shutdown), the waiting trail goes too ({@link #discarded});
 *   <li>a hand-out takes the pending trail, in the hold in which the item becomes processing
 *       ({@link #handOut}); adds after it, held until the item's {@code done} included, start a
 *       new pending trail, which the next hand-out takes.
 * </ul>
 *
 * So the adds a hand-out reports are exactly those the lock ordered between the previous
 * hand-out of the item and this one: the queue's own linearization. A lock-free {@code done}
 * (which retires the entry without the lock) changes nothing here: an add racing it either holds
 * a new round or starts a fresh entry, and both are handed out next. {@code TrailsStressTest}
 * checks this with many producers and consumers against each add's own record.
 *
 * <p>Item {@code equals}/{@code hashCode} and the tracer run here: what they throw is logged and
 * costs the add or hand-out its trace only, never a change of the queue's state.
 */
final class Trails<T> {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  /** One add's context as captured before the lock: {@code at} and {@code delay} in nanos. */
  record Mark(Object context, long at, long delay) {}

  /** The contexts of one round (or of one waiting add), the first {@code limit} kept. */
  static final class Trail {
    final List<Mark> kept = new ArrayList<>(2);
    int dropped;
    long readySince;

    void add(Mark m, int limit) {
      if (kept.size() < limit) {
        kept.add(m);
      } else {
        dropped++;
      }
    }

    void addAll(Trail t, int limit) {
      for (Mark m : t.kept) {
        add(m, limit);
      }
      dropped += t.dropped;
    }
  }

  private final QueueTracer<? super T> tracer;
  private final int limit;
  private final Clock clock;
  private final String name;
  private volatile boolean warned;
  /** Under the queue's lock: the adds each item's next hand-out covers. */
  private final Map<T, Trail> pending = new HashMap<>();
  /** Under the queue's lock: the adds behind each item's waiting delayed add. */
  private final Map<T, Trail> waiting = new HashMap<>();
  /** From a hand-out, under the lock, to {@link #deliver} on the taking thread. */
  private final Map<T, Trail> handedOut = new ConcurrentHashMap<>();

  Trails(QueueTracer<? super T> tracer, Clock clock, String name) {
    this.tracer = tracer;
    this.limit = Math.max(0, tracer.maxCarried());
    this.clock = clock;
    this.name = name == null ? "(unnamed)" : name;
  }

  // Null-safe forms for the engine's parts, whose trails are null on a queue without a tracer.

  static <T> void added(Trails<T> t, T item, Mark m) {
    if (t != null) {
      t.added(item, m);
    }
  }

  static <T> void delayed(Trails<T> t, T item, Mark m) {
    if (t != null) {
      t.delayed(item, m);
    }
  }

  static <T> void promoted(Trails<T> t, T item) {
    if (t != null) {
      t.promoted(item);
    }
  }

  static <T> void discarded(Trails<T> t, T item) {
    if (t != null) {
      t.discarded(item);
    }
  }

  static void discardedAll(Trails<?> t) {
    if (t != null) {
      t.discardedAll();
    }
  }

  /** On the adding thread, before the lock: the add's context, or null. */
  Mark capture(T item, long delayNanos) {
    Object context;
    try {
      context = tracer.onAdd(item, delayNanos <= 0 ? Duration.ZERO : Duration.ofNanos(delayNanos));
    } catch (RuntimeException | Error e) {
      failed("the tracer's onAdd", e);
      return null;
    }
    return context == null ? null : new Mark(context, clock.nanoTime(), Math.max(0, delayNanos));
  }

  /** Under the lock: an add of {@code item} without delay took effect. */
  void added(T item, Mark m) {
    if (m != null) {
      append(pending, item, m);
    }
  }

  /** Under the lock: a delayed add of {@code item} went into the waiting room. */
  void delayed(T item, Mark m) {
    if (m != null) {
      append(waiting, item, m);
    }
  }

  private void append(Map<T, Trail> trails, T item, Mark m) {
    try {
      trails.computeIfAbsent(item, k -> new Trail()).add(m, limit);
    } catch (RuntimeException | Error e) {
      failed("recording a traced add (the item's equals or hashCode)", e);
    }
  }

  /** Under the lock: the waiting add of {@code item} left the waiting room as an add. */
  void promoted(T item) {
    if (waiting.isEmpty()) {
      return;
    }
    try {
      Trail w = waiting.remove(item);
      if (w != null) {
        pending.computeIfAbsent(item, k -> new Trail()).addAll(w, limit);
      }
    } catch (RuntimeException | Error e) {
      failed("moving a due add's trace (the item's equals or hashCode)", e);
    }
  }

  /** Under the lock: the waiting add of {@code item} was discarded. */
  void discarded(T item) {
    if (waiting.isEmpty()) {
      return;
    }
    try {
      waiting.remove(item);
    } catch (RuntimeException | Error e) {
      failed("dropping a cancelled add's trace (the item's equals or hashCode)", e);
    }
  }

  /** Under the lock, at shutdown: every waiting add was discarded. */
  void discardedAll() {
    waiting.clear();
  }

  /** Under the lock: {@code item} is handed out; its round was ready since {@code readySince}. */
  void handOut(T item, long readySince) {
    try {
      Trail t = pending.remove(item);
      if (t == null) {
        t = new Trail();
      }
      t.readySince = readySince;
      handedOut.put(item, t);
    } catch (RuntimeException | Error e) {
      failed("handing out a traced item (its equals or hashCode)", e);
    }
  }

  /** On the taking thread, after the lock: tells the tracer what {@link #handOut} took. */
  void deliver(T item) {
    try {
      Trail t = handedOut.remove(item);
      if (t != null) {
        tracer.onHandOut(item, toHandOut(t, clock.nanoTime()));
      }
    } catch (RuntimeException | Error e) {
      failed("the tracer's onHandOut", e);
    }
  }

  private static HandOut toHandOut(Trail t, long now) {
    List<CarriedAdd> carried = new ArrayList<>(t.kept.size());
    for (Mark m : t.kept) {
      carried.add(new CarriedAdd(m.context(), Duration.ofNanos(m.delay()),
          Duration.ofNanos(Math.max(0, now - m.at()))));
    }
    return new HandOut(carried, t.dropped,
        Duration.ofNanos(Math.max(0, now - t.readySince)));
  }

  /**
   * Logged at warn once per queue, at debug after (an {@code Error} at error, every time): with
   * or without the lock. An {@code Error} is not thrown on, as at each call the queue's own
   * change is complete or not begun, and the trace is all it costs: thrown on, it would leave an
   * item processing that no caller holds, or a consumer unwoken.
   */
  private void failed(String what, Throwable e) {
    if (e instanceof Error) {
      log.error("queue {}: {} threw; the add or take goes on without its trace", name, what, e);
    } else if (!warned) {
      warned = true;
      log.warn("queue {}: {} threw; the add or take goes on without its trace (logged at warn"
          + " once per queue, at debug after)", name, what, e);
    } else if (log.isDebugEnabled()) {
      log.debug("queue {}: {} threw", name, what, e);
    }
  }

  /** For tests: whether nothing is left over for items no longer in the queue. */
  boolean isEmpty() {
    return pending.isEmpty() && waiting.isEmpty() && handedOut.isEmpty();
  }

}
