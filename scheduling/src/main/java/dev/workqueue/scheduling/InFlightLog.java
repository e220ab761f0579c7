package dev.workqueue.scheduling;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The items popped and not yet reported back, and the events that happened meanwhile.
 *
 * <p>Events get increasing sequence numbers; an attempt remembers the last number at its pop,
 * so the events it must be judged against are those with a larger number. Events older than
 * the oldest attempt still in flight concern nobody and are dropped when an attempt ends. The
 * log is bounded: when full, the oldest event is dropped and every attempt that began before
 * it is marked as having lost events, which the queue treats as "something relevant may have
 * happened" (retry after back-off) rather than silently ignoring it.
 *
 * <p>Guarded by the activeQ lock.
 */
final class InFlightLog<K, T> {

  /** One attempt: the item, the pop's id and the last event number at the pop. */
  static final class Attempt<K, T> {
    final QueuedItemInfo<K, T> info;
    final long id;
    final long startSeq;
    boolean deleted;

    Attempt(QueuedItemInfo<K, T> info, long id, long startSeq) {
      this.info = info;
      this.id = id;
      this.startSeq = startSeq;
    }
  }

  /** An event logged while attempts were in flight; {@code target} null means every item. */
  record Logged<K>(long seq, ClusterEvent event, Object oldObj, Object newObj, K target) {}

  /** The events an attempt must be judged against, and whether some were dropped. */
  record EventsSince<K>(List<Logged<K>> events, boolean lost) {}

  private final int maxEvents;
  private final LinkedHashMap<Long, Attempt<K, T>> attempts = new LinkedHashMap<>();
  private final HashMap<K, Attempt<K, T>> attemptByKey = new HashMap<>();
  private final ArrayDeque<Logged<K>> events = new ArrayDeque<>();
  private long lastSeq;
  private long droppedThrough = Long.MIN_VALUE;

  InFlightLog(int maxEvents) {
    this.maxEvents = maxEvents;
  }

  void start(QueuedItemInfo<K, T> info, long id) {
    Attempt<K, T> a = new Attempt<>(info, id, lastSeq);
    attempts.put(id, a);
    attemptByKey.put(info.key, a);
  }

  Attempt<K, T> byId(long id) {
    return attempts.get(id);
  }

  Attempt<K, T> byKey(K key) {
    return attemptByKey.get(key);
  }

  boolean isEmpty() {
    return attempts.isEmpty();
  }

  int attemptCount() {
    return attempts.size();
  }

  int eventCount() {
    return events.size();
  }

  /** Logs an event if any attempt (or, with a target, the target's attempt) is in flight. */
  void log(ClusterEvent event, Object oldObj, Object newObj, K target) {
    if (attempts.isEmpty() || (target != null && !attemptByKey.containsKey(target))) {
      return;
    }
    if (events.size() >= maxEvents) {
      droppedThrough = events.removeFirst().seq();
    }
    events.addLast(new Logged<>(++lastSeq, event, oldObj, newObj, target));
  }

  EventsSince<K> eventsFor(Attempt<K, T> a) {
    List<Logged<K>> mine = new ArrayList<>();
    for (Logged<K> e : events) {
      if (e.seq() > a.startSeq && (e.target() == null || e.target().equals(a.info.key))) {
        mine.add(e);
      }
    }
    boolean lost = droppedThrough != Long.MIN_VALUE && droppedThrough > a.startSeq;
    return new EventsSince<>(mine, lost);
  }

  /** Ends an attempt and drops the events no remaining attempt needs. */
  Attempt<K, T> finish(long id) {
    Attempt<K, T> a = attempts.remove(id);
    if (a == null) {
      return null;
    }
    attemptByKey.remove(a.info.key, a);
    Iterator<Attempt<K, T>> oldest = attempts.values().iterator();
    if (!oldest.hasNext()) {
      events.clear();
      return a;
    }
    long keepAfter = oldest.next().startSeq;
    while (!events.isEmpty() && events.peekFirst().seq() <= keepAfter) {
      events.removeFirst();
    }
    return a;
  }

  /** The items in flight, in pop order. */
  List<QueuedItemInfo<K, T>> items() {
    List<QueuedItemInfo<K, T>> list = new ArrayList<>(attempts.size());
    for (Attempt<K, T> a : attempts.values()) {
      list.add(a.info);
    }
    return list;
  }

  Map<Long, Attempt<K, T>> attemptsView() {
    return java.util.Collections.unmodifiableMap(attempts);
  }
}
