package dev.workqueue;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Round-robin across the values of a dimension of the item (a namespace, a tenant), first in,
 * first out within one value: a value with 10,000 ready keys gets one turn per round like a
 * value with 3, so it cannot starve them.
 *
 * <p>Each value has a <em>group</em>: a FIFO line linked through its entries. The groups that
 * have ready entries take turns in {@link #turns}: {@link #poll} serves the head of the first
 * group and, if it still has entries, sends it to the back. A group that empties leaves the
 * turns and rejoins at the back when an entry of it is ready again. All O(1) per operation.
 *
 * <p>The dimension is the caller's code. It runs in {@link #newEntry} (before the queue changes
 * any state, so a throw fails the add and harms nothing) and in {@link #check}, which the queue
 * calls when a delayed add is made, so that a dimension that throws fails that call and not a
 * later promotion. A group is kept while any entry of its value exists, and dropped after.
 */
final class FairOrder<T> extends ReadyOrder<T> {

  /** The line of one dimension value. */
  static final class Group<T> {
    final Object value;
    Entry<T> head;
    Entry<T> tail;
    int ready;
    /** Entries in the queue's map that belong here, ready or not. */
    int members;

    Group(Object value) {
      this.value = value;
    }
  }

  /** An entry with its group. */
  static final class FairEntry<T> extends Entry<T> {
    final Group<T> group;

    FairEntry(T item, Group<T> group) {
      super(item, 0);
      this.group = group;
    }
  }

  private final Function<? super T, ?> dimension;
  private final Map<Object, Group<T>> groups = new HashMap<>();
  private final ArrayDeque<Group<T>> turns = new ArrayDeque<>();
  private int size;

  FairOrder(Function<? super T, ?> dimension) {
    this.dimension = dimension;
  }

  /** The item's dimension value; throws as the dimension does, or if it gives null. */
  Object check(T item) {
    Object value = dimension.apply(item);
    if (value == null) {
      throw new NullPointerException("dimension gave null for " + item);
    }
    return value;
  }

  @Override
  Entry<T> newEntry(T item, int priority) {
    Object value = check(item);
    Group<T> g = groups.get(value);
    if (g == null) {
      g = new Group<>(value);
      groups.put(value, g);
    }
    g.members++;
    return new FairEntry<>(item, g);
  }

  @Override
  void append(Entry<T> e, long readySince) {
    Group<T> g = ((FairEntry<T>) e).group;
    e.behind = null;
    if (g.tail == null) {
      g.head = e;
      turns.addLast(g);
    } else {
      g.tail.behind = e;
    }
    g.tail = e;
    g.ready++;
    size++;
  }

  @Override
  Entry<T> poll(long now) {
    Group<T> g = turns.pollFirst();
    if (g == null) {
      return null;
    }
    Entry<T> e = g.head;
    g.head = e.behind;
    e.behind = null;
    g.ready--;
    size--;
    if (g.head == null) {
      g.tail = null;
    } else {
      turns.addLast(g);
    }
    return e;
  }

  @Override
  void released(Entry<T> e) {
    Group<T> g = ((FairEntry<T>) e).group;
    if (--g.members == 0) {
      groups.remove(g.value);
    }
  }

  @Override
  int size() {
    return size;
  }

  @Override
  boolean checkInvariants() {
    int n = 0;
    for (Group<T> g : turns) {
      int inLine = 0;
      Entry<T> last = null;
      for (Entry<T> e = g.head; e != null; e = e.behind) {
        if (((FairEntry<T>) e).group != g || e.ready != Entry.READY) {
          return false;
        }
        last = e;
        inLine++;
      }
      if (inLine == 0 || inLine != g.ready || last != g.tail || groups.get(g.value) != g) {
        return false;
      }
      n += inLine;
    }
    return n == size;
  }
}
