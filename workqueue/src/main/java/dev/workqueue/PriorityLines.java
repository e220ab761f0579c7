package dev.workqueue;

import java.util.Arrays;

/**
 * The ready items of a priority queue: one first-in first-out line per priority, and, while
 * aging is on, one line of all ready items by the time they became ready. Not thread-safe: the
 * queue's lock guards it.
 *
 * <p><b>Why lines and not a heap.</b> A controller uses a handful of priorities (controller-
 * runtime itself uses two: 0, and -100 for the initial list), so a line per priority makes
 * every operation O(1): append at a line's tail, take the head of the highest non-empty line,
 * unlink an item whose priority rises. The lines are intrusive doubly linked lists through the
 * {@link PriorityEntry} (no node allocation, O(1) unlink); a heap would cost O(log n)
 * comparisons per add and per take and need a sequence number for the FIFO tie-break.
 *
 * <p><b>Levels.</b> The lines ({@link Level}) sit in an array sorted by priority, highest
 * first, with their priorities in a parallel {@code int[]} for a binary search that touches no
 * object; the last level used is cached, so a run of adds at one priority does no search.
 * {@link #top} is the highest non-empty level. An emptied level is kept for reuse while there
 * are at most {@value #KEPT_LEVELS} levels (so a queue that drains and refills allocates
 * nothing), and dropped beyond that; so at most {@value #KEPT_LEVELS} empty levels exist, and
 * finding the next non-empty level below an emptied top skips at most that many. A priority
 * not seen before costs an array insertion, O(number of levels).
 *
 * <p><b>Age line.</b> Every ready item is also linked, in the order it became ready, into one
 * line across all priorities; a priority rise moves an item within the priority lines only, so
 * the age line's head is always the item that has been ready longest. Aging compares that head
 * with the top item: O(1) per take. With aging off the age line is not kept.
 */
final class PriorityLines<T> {
  static final int KEPT_LEVELS = 32;

  /** The line of one priority. */
  static final class Level<T> {
    final int priority;
    PriorityEntry<T> head;
    PriorityEntry<T> tail;
    int size;

    Level(int priority) {
      this.priority = priority;
    }
  }

  private final boolean trackAge;
  private int[] priorities = new int[4]; // descending
  private Level<T>[] levels = newLevels(4);
  private int levelCount;
  private Level<T> top; // highest non-empty level, or null
  private Level<T> recent; // last level looked up, or null
  private PriorityEntry<T> oldest;
  private PriorityEntry<T> newest;
  private int size;

  PriorityLines(boolean trackAge) {
    this.trackAge = trackAge;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static <T> Level<T>[] newLevels(int n) {
    return new Level[n];
  }

  int size() {
    return size;
  }

  /** The head of the highest non-empty line, or null if nothing is ready. */
  PriorityEntry<T> top() {
    return top == null ? null : top.head;
  }

  /** The item that has been ready longest, or null; only with age tracking. */
  PriorityEntry<T> oldest() {
    return oldest;
  }

  /** The item that became ready last, or null; only with age tracking. */
  PriorityEntry<T> newest() {
    return newest;
  }

  /** Appends {@code e} at the tail of its priority's line (and of the age line). */
  void append(PriorityEntry<T> e) {
    linkLevel(e, levelFor(e.priority));
    if (trackAge) {
      e.older = newest;
      e.newer = null;
      if (newest == null) {
        oldest = e;
      } else {
        newest.newer = e;
      }
      newest = e;
    }
    size++;
  }

  /** Removes {@code e} from its line (and the age line). */
  void remove(PriorityEntry<T> e) {
    unlinkLevel(e);
    if (trackAge) {
      if (e.older == null) {
        oldest = e.newer;
      } else {
        e.older.newer = e.newer;
      }
      if (e.newer == null) {
        newest = e.older;
      } else {
        e.newer.older = e.older;
      }
      e.older = null;
      e.newer = null;
    }
    size--;
  }

  /** Moves {@code e} to the tail of the line of {@code priority}; its age is unchanged. */
  void moveTo(PriorityEntry<T> e, int priority) {
    unlinkLevel(e);
    e.priority = priority;
    linkLevel(e, levelFor(priority));
  }

  private void linkLevel(PriorityEntry<T> e, Level<T> level) {
    e.next = null;
    e.prev = level.tail;
    if (level.tail == null) {
      level.head = e;
    } else {
      level.tail.next = e;
    }
    level.tail = e;
    if (level.size++ == 0 && (top == null || level.priority > top.priority)) {
      top = level;
    }
  }

  private void unlinkLevel(PriorityEntry<T> e) {
    Level<T> level = levelOf(e);
    if (e.prev == null) {
      level.head = e.next;
    } else {
      e.prev.next = e.next;
    }
    if (e.next == null) {
      level.tail = e.prev;
    } else {
      e.next.prev = e.prev;
    }
    e.prev = null;
    e.next = null;
    if (--level.size == 0) {
      emptied(level);
    }
  }

  private void emptied(Level<T> level) {
    int index = indexOf(level.priority);
    if (level == top) {
      top = null;
      for (int i = index + 1; i < levelCount; i++) {
        if (levels[i].size > 0) {
          top = levels[i];
          break;
        }
      }
    }
    if (levelCount > KEPT_LEVELS) {
      int tail = levelCount - index - 1;
      System.arraycopy(levels, index + 1, levels, index, tail);
      System.arraycopy(priorities, index + 1, priorities, index, tail);
      levels[--levelCount] = null;
      if (recent == level) {
        recent = null;
      }
    }
  }

  /**
   * The level whose line holds {@code e}: the top one for a take, else found by the entry's
   * priority, which is its line's; it exists, as a level is dropped only when empty (a lookup
   * that found none would throw, not make one). Entries keep no link to their level: 8 bytes
   * less per queued item, PERF.md's memory bar.
   */
  private Level<T> levelOf(PriorityEntry<T> e) {
    int p = e.priority;
    Level<T> t = top;
    if (t != null && t.priority == p) {
      return t;
    }
    Level<T> r = recent;
    return r != null && r.priority == p ? r : levels[indexOf(p)];
  }

  /** The level of {@code priority}, created if absent. */
  private Level<T> levelFor(int priority) {
    Level<T> r = recent;
    if (r != null && r.priority == priority) {
      return r;
    }
    int index = indexOf(priority);
    if (index >= 0) {
      r = levels[index];
    } else {
      r = insertLevel(-(index + 1), priority);
    }
    recent = r;
    return r;
  }

  /**
   * Binary search of the descending {@code priorities}: the index of {@code priority}, or
   * {@code -(insertion point) - 1}.
   */
  private int indexOf(int priority) {
    int lo = 0;
    int hi = levelCount - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int p = priorities[mid];
      if (p > priority) {
        lo = mid + 1;
      } else if (p < priority) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  private Level<T> insertLevel(int index, int priority) {
    if (levelCount == levels.length) {
      levels = Arrays.copyOf(levels, levelCount * 2);
      priorities = Arrays.copyOf(priorities, levelCount * 2);
    }
    int tail = levelCount - index;
    System.arraycopy(levels, index, levels, index + 1, tail);
    System.arraycopy(priorities, index, priorities, index + 1, tail);
    Level<T> level = new Level<>(priority);
    levels[index] = level;
    priorities[index] = priority;
    levelCount++;
    return level;
  }

  /** For tests: the number of levels held, empty ones included. */
  int levelCount() {
    return levelCount;
  }

  /** For tests: the lines, the age line, the top and the counts agree. */
  boolean checkInvariants() {
    int counted = 0;
    Level<T> expectedTop = null;
    for (int i = 0; i < levelCount; i++) {
      Level<T> level = levels[i];
      if (level.priority != priorities[i] || (i > 0 && priorities[i - 1] <= priorities[i])) {
        return false;
      }
      int n = lineLength(level);
      if (n < 0) {
        return false;
      }
      if (n > 0 && expectedTop == null) {
        expectedTop = level;
      }
      counted += n;
    }
    return counted == size && expectedTop == top && (!trackAge || ageLineAgrees());
  }

  /** The level's line is linked both ways, at its priority, with its size; else -1. */
  private int lineLength(Level<T> level) {
    int n = 0;
    PriorityEntry<T> prev = null;
    for (PriorityEntry<T> e = level.head; e != null; e = e.next) {
      if (e.prev != prev || e.priority != level.priority) {
        return -1;
      }
      prev = e;
      n++;
    }
    return n == level.size && level.tail == prev ? n : -1;
  }

  /** The age line holds every entry, linked both ways, oldest first. */
  private boolean ageLineAgrees() {
    int n = 0;
    PriorityEntry<T> older = null;
    for (PriorityEntry<T> e = oldest; e != null; e = e.newer) {
      if (e.older != older || (older != null && e.readySince - older.readySince < 0)) {
        return false;
      }
      older = e;
      n++;
    }
    return n == size && newest == older;
  }
}
