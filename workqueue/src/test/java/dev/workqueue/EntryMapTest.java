package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.testsupport.StressScale;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The queue's {@link EntryMap}: its operations, resizes, chains, user code that throws, races. */
class EntryMapTest {

  /** An item whose hash code the test chooses, so items can share a bin. */
  record Key(int id, int hash) {
    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.id == id;
    }
  }

  private static <T> Entry<T> entry(T item) {
    return new Entry<>(item, 0);
  }

  private static <T> List<Entry<T>> all(EntryMap<T> map) {
    List<Entry<T>> out = new ArrayList<>();
    map.forEach(out::add);
    return out;
  }

  @Test
  void putGetRemove() {
    EntryMap<String> map = new EntryMap<>();
    assertTrue(map.isEmpty());
    Entry<String> a = entry("a");
    assertNull(map.putIfAbsent("a", a));
    assertSame(a, map.get("a"));
    assertSame(a, map.putIfAbsent("a", entry("a")), "the entry in the map, not the new one");
    assertFalse(map.isEmpty());
    assertNull(map.get("b"));
    assertFalse(map.remove(entry("a")), "another entry of the same item is not in the map");
    assertTrue(map.remove(a));
    assertFalse(map.remove(a), "removed once");
    assertNull(map.get("a"));
    assertTrue(map.isEmpty());
  }

  @Test
  void replace_swapsTheEntryOnlyIfItIsStillTheMaps() {
    EntryMap<String> map = new EntryMap<>();
    Entry<String> a = entry("a");
    map.putIfAbsent("a", a);
    Entry<String> b = entry("a");
    assertTrue(map.replace("a", a, b));
    assertSame(b, map.get("a"));
    assertFalse(map.replace("a", a, entry("a")), "a is no longer in the map");
    assertSame(b, map.get("a"));
    assertTrue(map.remove(b));
    assertTrue(map.isEmpty(), "a replacement is counted once");
  }

  @Test
  void resizes_keepEveryEntry() {
    EntryMap<Integer> map = new EntryMap<>(1);
    int n = 10_000;
    List<Entry<Integer>> entries = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Entry<Integer> e = entry(i);
      entries.add(e);
      assertNull(map.putIfAbsent(i, e));
    }
    for (int i = 0; i < n; i++) {
      assertSame(entries.get(i), map.get(i), "key " + i);
    }
    assertEquals(n, all(map).size());
    for (int i = 0; i < n; i += 2) {
      assertTrue(map.remove(entries.get(i)));
    }
    for (int i = 0; i < n; i++) {
      assertEquals(i % 2 == 0 ? null : entries.get(i), map.get(i), "key " + i);
    }
    for (int i = 1; i < n; i += 2) {
      assertTrue(map.remove(entries.get(i)));
    }
    assertTrue(map.isEmpty());
    assertTrue(all(map).isEmpty());
  }

  /** Items with one hash code share a chain: removal and replacement at its head, middle, tail. */
  @Test
  void chainOfEqualHashes_removesAndReplacesAnywhereInIt() {
    EntryMap<Key> map = new EntryMap<>();
    List<Entry<Key>> entries = new ArrayList<>();
    for (int id = 0; id < 5; id++) {
      Key k = new Key(id, 7);
      Entry<Key> e = entry(k);
      entries.add(e);
      assertNull(map.putIfAbsent(k, e));
    }
    // Pushed in front: the chain is 4, 3, 2, 1, 0.
    assertTrue(map.remove(entries.get(2))); // middle
    assertTrue(map.remove(entries.get(4))); // head
    assertTrue(map.remove(entries.get(0))); // tail
    Entry<Key> three = entry(new Key(3, 7));
    assertTrue(map.replace(three.item, entries.get(3), three)); // head now
    Entry<Key> one = entry(new Key(1, 7));
    assertTrue(map.replace(one.item, entries.get(1), one)); // tail now
    assertSame(three, map.get(new Key(3, 7)));
    assertSame(one, map.get(new Key(1, 7)));
    assertNull(map.get(new Key(2, 7)));
    assertNull(map.get(new Key(0, 7)));
    assertEquals(Set.of(three, one), new HashSet<>(all(map)));
  }

  @Test
  void throwingHashCodeOrEquals_leavesTheMapAsItWas() {
    EntryMap<Object> map = new EntryMap<>();
    Key k = new Key(1, 3);
    Entry<Object> e = entry(k);
    map.putIfAbsent(k, e);
    Object badHash = new Object() {
      @Override
      public int hashCode() {
        throw new IllegalStateException("hashCode");
      }
    };
    assertThrows(IllegalStateException.class, () -> map.putIfAbsent(badHash, entry(badHash)));
    assertThrows(IllegalStateException.class, () -> map.get(badHash));
    Object badEquals = new Object() {
      @Override
      public int hashCode() {
        return 3; // k's bin and hash: equals is called on k's entry
      }

      @Override
      public boolean equals(Object o) {
        throw new IllegalStateException("equals");
      }
    };
    assertThrows(IllegalStateException.class, () -> map.putIfAbsent(badEquals, entry(badEquals)));
    assertEquals(List.of(e), all(map));
    assertSame(e, map.get(k));
    assertTrue(map.remove(e));
    assertTrue(map.isEmpty(), "a failed insert is not counted");
  }

  @Test
  void newMap_rejectsACapacityThatIsNotAPowerOfTwo() {
    IllegalArgumentException ex =
        assertThrows(IllegalArgumentException.class, () -> new EntryMap<>(3));
    assertTrue(ex.getMessage().contains("capacity"), ex.getMessage());
  }

  /**
   * Threads insert, look up and remove keys while the map grows from one bin. Each thread owns
   * its keys (so it knows what the map must answer for them) and also races the others on
   * shared keys (inserts of one shared key: one wins; removals of one entry: one wins).
   */
  @Test
  void stress_ownedAndSharedKeysWhileResizing() throws Exception {
    int threads = 4;
    int rounds = 20 * StressScale.factor();
    for (int round = 0; round < rounds; round++) {
      EntryMap<Integer> map = new EntryMap<>(1);
      int perThread = 2_000;
      int shared = 64;
      AtomicInteger[] sharedWins = new AtomicInteger[shared];
      for (int i = 0; i < shared; i++) {
        sharedWins[i] = new AtomicInteger();
      }
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int me = t;
          done.add(pool.submit(() -> {
            start.await();
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            List<Entry<Integer>> mine = new ArrayList<>();
            for (int i = 0; i < perThread; i++) {
              int key = shared + me * perThread + i;
              Entry<Integer> e = entry(key);
              assertNull(map.putIfAbsent(key, e), "an owned key is new");
              mine.add(e);
              int s = rnd.nextInt(shared);
              Entry<Integer> se = entry(s);
              Entry<Integer> there = map.putIfAbsent(s, se);
              if (there == null) {
                sharedWins[s].incrementAndGet();
                there = se;
              }
              if (rnd.nextBoolean() && map.remove(there)) {
                sharedWins[s].decrementAndGet();
              }
              Entry<Integer> check = mine.get(rnd.nextInt(mine.size()));
              assertSame(check, map.get(check.item), "an owned key stays until removed");
              if (rnd.nextInt(4) == 0) {
                Entry<Integer> gone = mine.remove(rnd.nextInt(mine.size()));
                assertTrue(map.remove(gone));
                assertNull(map.get(gone.item), "a removed owned key is gone");
              }
            }
            for (Entry<Integer> e : mine) {
              assertSame(e, map.get(e.item));
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      Set<Integer> items = new HashSet<>();
      for (Entry<Integer> e : all(map)) {
        assertTrue(items.add(e.item), "one entry per item: " + e.item);
      }
      for (int s = 0; s < shared; s++) {
        assertEquals(sharedWins[s].get(), items.contains(s) ? 1 : 0, "shared key " + s);
      }
      for (Entry<Integer> e : all(map)) {
        assertTrue(map.remove(e));
      }
      assertTrue(map.isEmpty());
    }
  }
}
