package dev.workqueue.kubernetes;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A linearizable {@link ShardStore} in memory, as the API server is for Leases, with members
 * that can be cut off (their calls fail, before or after taking effect).
 */
final class InMemoryShardStore implements ShardStore {
  private final Map<String, Entry> entries = new TreeMap<>();
  /** Records deleted by another member: members counted out after their lease expired. */
  final java.util.concurrent.atomic.AtomicInteger countedOut =
      new java.util.concurrent.atomic.AtomicInteger();
  private long versions;
  /** Members whose calls fail. */
  final Set<String> cutOff = ConcurrentHashMap.newKeySet();
  /** Members whose next write takes effect and then fails (an answer lost on the way back). */
  final Set<String> loseNextAnswer = ConcurrentHashMap.newKeySet();

  /** The store as seen by {@code member}: its calls fail while it is cut off. */
  ShardStore as(String member) {
    return new ForwardingShardStore(this) {
      @Override
      public List<Entry> list() throws Exception {
        check(member);
        return super.list();
      }

      @Override
      public Entry write(String id, String expectedVersion, List<String> view, boolean leaving)
          throws Exception {
        check(member);
        Entry e = super.write(id, expectedVersion, view, leaving);
        if (loseNextAnswer.remove(member)) {
          throw new IOException("answer lost (" + member + ")");
        }
        return e;
      }

      @Override
      public void delete(String id, String expectedVersion) throws Exception {
        check(member);
        super.delete(id, expectedVersion);
        if (!id.equals(member)) {
          countedOut.incrementAndGet();
        }
      }
    };
  }

  private void check(String member) throws IOException {
    if (cutOff.contains(member)) {
      throw new IOException("cut off (" + member + ")");
    }
  }

  @Override
  public synchronized List<Entry> list() {
    return new ArrayList<>(entries.values());
  }

  @Override
  public synchronized Entry write(String id, String expectedVersion, List<String> view,
      boolean leaving) throws Conflict {
    Entry now = entries.get(id);
    String have = now == null ? null : now.version();
    if (!java.util.Objects.equals(have, expectedVersion)) {
      throw new Conflict(id + " is at " + have + ", not " + expectedVersion);
    }
    Entry e = new Entry(id, Long.toString(++versions), List.copyOf(view), leaving);
    entries.put(id, e);
    return e;
  }

  @Override
  public synchronized void delete(String id, String expectedVersion) throws Conflict {
    Entry now = entries.get(id);
    if (now != null && !now.version().equals(expectedVersion)) {
      throw new Conflict(id + " is at " + now.version() + ", not " + expectedVersion);
    }
    entries.remove(id);
  }

  synchronized List<String> ids() {
    return new ArrayList<>(entries.keySet());
  }
}
