package dev.workqueue.lincheck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The sequential specification for {@link PriorityWorkQueueLincheckTest}: SPEC-workqueue §8
 * written as plainly as possible. Each key has a priority, whether it is processing, and where
 * its pending add is: nowhere, waiting for a delay, ready in line, or held (ready, but waiting
 * for its {@code done}). The ready keys are one list in the order they joined their lines; a
 * take picks the highest priority, the first in that list among equals. The clock never moves
 * during a scenario, so a delayed key only ever waits and aging never applies.
 *
 * <ul>
 *   <li>an add without delay makes a key ready (held if processing); a ready or held key keeps
 *       its highest priority, and a rise moves a ready key to the end of the list;
 *   <li>an add with delay makes an absent key wait; a waiting key keeps waiting (at its highest
 *       priority); a ready key stays ready;
 *   <li>{@code done} ignores a key that is not processing; a held key joins the end of the list;
 *   <li>{@code shutDown} drops waiting adds; after it every add is ignored.
 * </ul>
 */
public class PriorityWorkQueueSpec {
  private enum Pending { NONE, WAITING, READY, HELD }

  private static final class Entry {
    int priority;
    Pending pending = Pending.NONE;
    boolean processing;

    Entry(int priority) {
      this.priority = priority;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e
          && priority == e.priority && pending == e.pending && processing == e.processing;
    }

    @Override
    public int hashCode() {
      return Objects.hash(priority, pending, processing);
    }
  }

  private final Map<Integer, Entry> entries = new HashMap<>();
  private final List<Integer> line = new ArrayList<>();
  private boolean shutDown;

  public void add(int key) {
    addAt(key, 0);
  }

  public void addAt(int key, int priority) {
    if (shutDown) {
      return;
    }
    Entry e = entries.get(key);
    if (e == null || e.pending == Pending.NONE || e.pending == Pending.WAITING) {
      if (e == null) {
        e = new Entry(priority);
        entries.put(key, e);
      } else {
        e.priority = e.pending == Pending.NONE ? priority : Math.max(e.priority, priority);
      }
      if (e.processing) {
        e.pending = Pending.HELD;
      } else {
        e.pending = Pending.READY;
        line.add(key);
      }
    } else {
      raise(key, e, priority);
    }
  }

  public void addAfter(int key) {
    if (shutDown) {
      return;
    }
    Entry e = entries.get(key);
    if (e == null) {
      e = new Entry(0);
      e.pending = Pending.WAITING;
      entries.put(key, e);
    } else if (e.pending == Pending.NONE) {
      e.priority = 0;
      e.pending = Pending.WAITING;
    } else if (e.pending == Pending.WAITING) {
      e.priority = Math.max(e.priority, 0);
    } else {
      raise(key, e, 0);
    }
  }

  private void raise(int key, Entry e, int priority) {
    if (priority > e.priority) {
      e.priority = priority;
      if (e.pending == Pending.READY) {
        line.remove(Integer.valueOf(key));
        line.add(key);
      }
    }
  }

  /** The key taken times 10 plus its priority, or null. */
  public Integer poll() {
    Integer best = null;
    for (Integer key : line) {
      if (best == null || entries.get(key).priority > entries.get(best).priority) {
        best = key;
      }
    }
    if (best == null) {
      return null;
    }
    line.remove(best);
    Entry e = entries.get(best);
    e.pending = Pending.NONE;
    e.processing = true;
    return best * 10 + e.priority;
  }

  public void done(int key) {
    Entry e = entries.get(key);
    if (e == null || !e.processing) {
      return;
    }
    e.processing = false;
    if (e.pending == Pending.NONE) {
      entries.remove(key);
    } else if (e.pending == Pending.HELD) {
      e.pending = Pending.READY;
      line.add(key);
    }
  }

  public boolean cancel(int key) {
    Entry e = entries.get(key);
    if (e == null || e.pending != Pending.WAITING) {
      return false;
    }
    e.pending = Pending.NONE;
    if (!e.processing) {
      entries.remove(key);
    }
    return true;
  }

  public int size() {
    return line.size();
  }

  public int waitingCount() {
    return (int) entries.values().stream().filter(e -> e.pending == Pending.WAITING).count();
  }

  public void shutDown() {
    if (shutDown) {
      return;
    }
    shutDown = true;
    entries.values().removeIf(e -> {
      if (e.pending != Pending.WAITING) {
        return false;
      }
      e.pending = Pending.NONE;
      return !e.processing;
    });
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PriorityWorkQueueSpec s
        && shutDown == s.shutDown && entries.equals(s.entries) && line.equals(s.line);
  }

  @Override
  public int hashCode() {
    return Objects.hash(entries, line, shutDown);
  }
}
