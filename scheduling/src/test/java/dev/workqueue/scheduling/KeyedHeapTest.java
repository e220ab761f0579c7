package dev.workqueue.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class KeyedHeapTest {
  record Entry(String key, int priority) {}

  private static KeyedHeap<String, Entry> heap() {
    return new KeyedHeap<>(Entry::key, Comparator.comparingInt(Entry::priority));
  }

  private static List<Integer> drain(KeyedHeap<String, Entry> h) {
    List<Integer> out = new ArrayList<>();
    Entry e;
    while ((e = h.pop()) != null) {
      out.add(e.priority());
    }
    return out;
  }

  @Test
  void ascendingInserts_popInOrder() {
    KeyedHeap<String, Entry> h = heap();
    for (int i = 0; i < 10; i++) {
      h.addOrUpdate(new Entry("k" + i, i));
    }
    assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), drain(h));
  }

  @Test
  void descendingInserts_popInOrder() {
    KeyedHeap<String, Entry> h = heap();
    for (int i = 9; i >= 0; i--) {
      h.addOrUpdate(new Entry("k" + i, i));
    }
    assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), drain(h));
  }

  @Test
  void randomInserts_popInOrder() {
    KeyedHeap<String, Entry> h = heap();
    Random r = new Random(42);
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      int p = r.nextInt(1000);
      expected.add(p);
      h.addOrUpdate(new Entry("k" + i, p));
    }
    expected.sort(null);
    assertEquals(expected, drain(h));
  }

  @Test
  void duplicatePriorities_allComeOut() {
    KeyedHeap<String, Entry> h = heap();
    for (int i = 0; i < 6; i++) {
      h.addOrUpdate(new Entry("k" + i, i % 2));
    }
    assertEquals(List.of(0, 0, 0, 1, 1, 1), drain(h));
  }

  @Test
  void sameKeyTwice_isAnUpdateNotADuplicate() {
    KeyedHeap<String, Entry> h = heap();
    assertNull(h.addOrUpdate(new Entry("a", 5)));
    assertEquals(new Entry("a", 5), h.addOrUpdate(new Entry("a", 7)));
    assertEquals(1, h.size());
    assertEquals(7, h.get("a").priority());
  }

  @Test
  void deleteHeadTailMiddleAndMissing() {
    KeyedHeap<String, Entry> h = heap();
    for (int i = 0; i < 7; i++) {
      h.addOrUpdate(new Entry("k" + i, i));
    }
    assertEquals(0, h.delete("k0").priority()); // head
    assertEquals(6, h.delete("k6").priority()); // tail
    assertEquals(3, h.delete("k3").priority()); // middle
    assertNull(h.delete("missing"));
    assertFalse(h.has("k3"));
    assertTrue(h.has("k4"));
    assertEquals(1, h.peek().priority());
    assertEquals(List.of(1, 2, 4, 5), drain(h));
    assertTrue(h.isEmpty());
  }

  @Test
  void updateToLowerAndHigherPriority() {
    KeyedHeap<String, Entry> h = heap();
    for (int i = 0; i < 5; i++) {
      h.addOrUpdate(new Entry("k" + i, i * 10));
    }
    h.addOrUpdate(new Entry("k4", -1)); // now first
    assertEquals("k4", h.peek().key());
    h.addOrUpdate(new Entry("k0", 100)); // now last
    List<String> keys = new ArrayList<>();
    Entry e;
    while ((e = h.pop()) != null) {
      keys.add(e.key());
    }
    assertEquals(List.of("k4", "k1", "k2", "k3", "k0"), keys);
  }

  @Test
  void peekGetHasListSize_onEmptyAndFull() {
    KeyedHeap<String, Entry> h = heap();
    assertNull(h.peek());
    assertNull(h.pop());
    assertNull(h.get("x"));
    h.addOrUpdate(new Entry("x", 3));
    h.addOrUpdate(new Entry("y", 1));
    assertEquals("y", h.peek().key());
    assertEquals(2, h.list().size());
    assertEquals(2, h.size());
    assertEquals(3, h.get("x").priority());
  }

  @Test
  void nullArguments_failNamingThem() {
    KeyedHeap<String, Entry> h = heap();
    NullPointerException e = assertThrows(NullPointerException.class, () -> h.addOrUpdate(null));
    assertTrue(e.getMessage().contains("element"));
    assertThrows(NullPointerException.class, () -> h.delete(null));
    assertThrows(NullPointerException.class, () -> new KeyedHeap<String, Entry>(null, null));
  }

  @Test
  void thousandMixedOperations_matchSortedReference() {
    KeyedHeap<String, Entry> h = heap();
    // reference: key -> priority, and an ordered set of (priority, key)
    Map<String, Integer> ref = new HashMap<>();
    TreeSet<Entry> order = new TreeSet<>(
        Comparator.comparingInt(Entry::priority).thenComparing(Entry::key));
    Random r = new Random(7);
    for (int op = 0; op < 1000; op++) {
      String key = "k" + r.nextInt(120);
      int choice = r.nextInt(10);
      if (choice < 5) {
        int p = r.nextInt(50);
        Integer old = ref.put(key, p);
        if (old != null) {
          order.remove(new Entry(key, old));
        }
        order.add(new Entry(key, p));
        h.addOrUpdate(new Entry(key, p));
      } else if (choice < 7) {
        Integer old = ref.remove(key);
        if (old != null) {
          order.remove(new Entry(key, old));
        }
        Entry removed = h.delete(key);
        assertEquals(old, removed == null ? null : removed.priority());
      } else if (choice < 9) {
        Entry popped = h.pop();
        if (order.isEmpty()) {
          assertNull(popped);
        } else {
          assertEquals(order.first().priority(), popped.priority());
          order.remove(popped);
          ref.remove(popped.key());
        }
      } else {
        Entry head = h.peek();
        assertEquals(order.isEmpty() ? null : order.first().priority(),
            head == null ? null : head.priority());
      }
      assertEquals(ref.size(), h.size());
      assertEquals(ref.containsKey(key), h.has(key));
      assertTrue(h.checkInvariants(true), "invariants after operation " + op);
    }
    List<Integer> expected = new ArrayList<>();
    order.forEach(e -> expected.add(e.priority()));
    assertEquals(expected, drain(h));
  }

  /** A key whose hash is chosen by the test, so that keys share probe runs in the index. */
  record Collider(int id, int hash) {
    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Collider c && c.id == id;
    }
  }

  @Test
  void collidingKeys_throughGrowthAndShrink_stayReachableByKey() {
    KeyedHeap<Collider, int[]> h = new KeyedHeap<>(
        e -> new Collider(e[0], e[0] % 7), Comparator.comparingInt((int[] e) -> e[1]));
    Map<Integer, Integer> ref = new HashMap<>();
    Random r = new Random(11);
    // Grow to 5000 keys of 7 hash values (long probe runs, several table doublings) while
    // deleting at random, then shrink to nothing: every step checks lookups of all keys seen.
    for (int round = 0; round < 2; round++) {
      for (int op = 0; op < 20_000; op++) {
        int id = r.nextInt(5000);
        boolean grow = round == 0 ? r.nextInt(4) != 0 : r.nextInt(4) == 0;
        if (grow) {
          int priority = r.nextInt(1000);
          h.addOrUpdate(new int[] {id, priority});
          ref.put(id, priority);
        } else {
          int[] removed = h.delete(new Collider(id, id % 7));
          Integer old = ref.remove(id);
          assertEquals(old, removed == null ? null : removed[1]);
        }
        if (op % 97 == 0) {
          assertTrue(h.checkInvariants(true), "invariants after operation " + op);
        }
        if (op % 997 == 0) {
          for (int k = 0; k < 5000; k++) {
            int[] got = h.get(new Collider(k, k % 7));
            assertEquals(ref.get(k), got == null ? null : got[1], "key " + k);
          }
        }
      }
      assertEquals(ref.size(), h.size());
    }
    List<Integer> popped = new ArrayList<>();
    int[] e;
    while ((e = h.pop()) != null) {
      assertTrue(ref.remove(e[0]) != null, "popped a key that was not there: " + e[0]);
      popped.add(e[1]);
      assertFalse(h.has(new Collider(e[0], e[0] % 7)));
    }
    assertTrue(ref.isEmpty());
    List<Integer> sorted = new ArrayList<>(popped);
    sorted.sort(null);
    assertEquals(sorted, popped);
    h.addOrUpdate(new int[] {1, 1});
    assertTrue(h.has(new Collider(1, 1)));
  }

  /**
   * The comparator should not throw (the scheduling queue's catch what the user's code throws),
   * but if it does, in the middle of any sift, no key may lose its element and no slot may be
   * left empty: the element being moved stays where the sift had taken it.
   */
  @Test
  void comparatorThatThrows_midSift_losesNoElement_andKeysStillLeadToTheirOwn() {
    boolean[] broken = {false};
    int[] comparisons = {0};
    int[] throwAt = {0};
    KeyedHeap<String, Entry> h = new KeyedHeap<>(Entry::key, (a, b) -> {
      if (broken[0] && ++comparisons[0] >= throwAt[0]) {
        throw new IllegalStateException("broken comparator");
      }
      return Integer.compare(a.priority(), b.priority());
    });
    Random r = new Random(3);
    Map<String, Entry> ref = new HashMap<>();
    for (int i = 0; i < 200; i++) {
      Entry e = new Entry("k" + i, r.nextInt(1000));
      h.addOrUpdate(e);
      ref.put(e.key(), e);
    }
    for (int round = 0; round < 300; round++) {
      broken[0] = true;
      comparisons[0] = 0;
      throwAt[0] = 1 + r.nextInt(6); // the first comparison, or a later one mid-sift
      String key = "k" + r.nextInt(260);
      Entry e = new Entry(key, r.nextInt(1000));
      int op = r.nextInt(3);
      try {
        if (op == 0) {
          h.addOrUpdate(e); // a new key or an update, up or down
          ref.put(key, e);
        } else if (op == 1) {
          assertEquals(ref.remove(key), h.delete(key));
        } else {
          Entry popped = h.pop();
          if (popped != null) {
            ref.remove(popped.key());
          }
        }
      } catch (IllegalStateException expected) {
        // the change was made before the sift that threw: the element is in, or out
        if (op == 0) {
          ref.put(key, e);
        } else if (op == 1) {
          ref.remove(key);
        }
      }
      broken[0] = false;
      if (op == 2) { // a pop that threw removed its head all the same: resync from the heap
        ref.keySet().removeIf(k -> !h.has(k));
      }
      assertTrue(h.checkInvariants(false), "arrays agree after round " + round);
      assertEquals(ref.size(), h.size(), "round " + round);
      for (Map.Entry<String, Entry> x : ref.entrySet()) {
        assertEquals(x.getValue(), h.get(x.getKey()), "round " + round + ", key " + x.getKey());
      }
    }
    List<Entry> all = h.list();
    assertEquals(ref.size(), all.size());
    assertTrue(all.stream().allMatch(x -> x != null && ref.get(x.key()) == x));
  }
}
