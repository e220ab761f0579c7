package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DelayHeapTest {

  /** Keys that collide often, to exercise probing and backward-shift deletion. */
  record Key(int id) {
    @Override
    public int hashCode() {
      return id % 7;
    }
  }

  @Test
  void poll_returnsReadyTimeOrder_tiesFirstInFirstOut() {
    DelayHeap<String> h = new DelayHeap<>();
    h.offerEarliest("c", 30);
    h.offerEarliest("a", 10);
    h.offerEarliest("b1", 20);
    h.offerEarliest("b2", 20);
    List<String> out = new ArrayList<>();
    while (!h.isEmpty()) {
      out.add(h.poll());
    }
    assertEquals(List.of("a", "b1", "b2", "c"), out);
  }

  @Test
  void offerEarliest_keepsTheEarlierTime() {
    DelayHeap<String> h = new DelayHeap<>();
    assertTrue(h.offerEarliest("x", 50));
    assertFalse(h.offerEarliest("x", 70));
    assertEquals(50, h.readyAtOf("x"));
    assertTrue(h.offerEarliest("x", 30));
    assertEquals(30, h.readyAtOf("x"));
    assertEquals(1, h.size());
  }

  @Test
  void schedule_movesEitherWay() {
    DelayHeap<String> h = new DelayHeap<>();
    h.schedule("x", 50);
    h.schedule("y", 60);
    h.schedule("x", 70);
    assertEquals("y", h.head());
    h.schedule("x", 10);
    assertEquals("x", h.head());
  }

  @Test
  void wrappingTimes_compareByDifference() {
    DelayHeap<String> h = new DelayHeap<>();
    long near = Long.MAX_VALUE - 5;
    h.offerEarliest("late", near + 20); // wraps negative
    h.offerEarliest("early", near + 1);
    assertEquals("early", h.poll());
    assertEquals("late", h.poll());
  }

  @Test
  void randomOperations_matchAReferenceModel() {
    Random random = new Random(42);
    DelayHeap<Key> h = new DelayHeap<>();
    Map<Key, long[]> model = new HashMap<>(); // key -> {readyAt, seq}
    long seq = 0;
    for (int step = 0; step < 200_000; step++) {
      Key k = new Key(random.nextInt(2000));
      long at = random.nextInt(10_000);
      switch (random.nextInt(5)) {
        case 0, 1 -> {
          long[] cur = model.get(k);
          boolean changed = h.offerEarliest(k, at);
          if (cur == null) {
            model.put(k, new long[] {at, seq++});
            assertTrue(changed);
          } else if (at < cur[0]) {
            cur[0] = at;
            assertTrue(changed);
          } else {
            assertFalse(changed);
          }
        }
        case 2 -> {
          h.schedule(k, at);
          model.put(k, new long[] {at, seq++});
        }
        case 3 -> assertEquals(model.remove(k) != null, h.remove(k));
        default -> {
          if (!model.isEmpty()) {
            Key expected = model.entrySet().stream()
                .min((a, b) -> a.getValue()[0] != b.getValue()[0]
                    ? Long.compare(a.getValue()[0], b.getValue()[0])
                    : Long.compare(a.getValue()[1], b.getValue()[1]))
                .orElseThrow().getKey();
            assertEquals(model.get(expected)[0], h.headReadyAt());
            assertEquals(expected, h.poll());
            model.remove(expected);
          }
        }
      }
      assertEquals(model.size(), h.size());
      if (step % 1000 == 0) {
        assertTrue(h.checkInvariants(), "invariants at step " + step);
        for (Key key : model.keySet()) {
          assertTrue(h.contains(key));
          assertEquals(model.get(key)[0], h.readyAtOf(key));
        }
      }
    }
    while (!h.isEmpty()) {
      model.remove(h.poll());
    }
    assertTrue(model.isEmpty());
    assertTrue(h.checkInvariants());
  }

  /** A key whose hash code the test can change, or make throw, while it waits. */
  static final class FlakyKey {
    final int id;
    int hash;
    boolean throwing;

    FlakyKey(int id) {
      this.id = id;
      this.hash = id % 7;
    }

    @Override
    public int hashCode() {
      if (throwing) {
        throw new IllegalStateException("hashCode of " + id);
      }
      return hash;
    }

    @Override
    public String toString() {
      return "k" + id;
    }
  }

  /**
   * A waiting item whose hashCode later throws, or changes (a key mutated while it waits), is
   * that item's problem only: removing and polling the other items, which shifts the index's
   * probe runs the item sits in and rebuilds the index as the heap shrinks, calls no other
   * item's hashCode, and every other item stays findable and comes out in order.
   */
  @Test
  void anItemWhoseHashCodeLaterThrowsOrChanges_costsNoOtherItemItsPlace() {
    for (boolean throwing : new boolean[] {true, false}) {
      DelayHeap<FlakyKey> h = new DelayHeap<>();
      List<FlakyKey> keys = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        FlakyKey k = new FlakyKey(i);
        keys.add(k);
        h.offerEarliest(k, i);
      }
      FlakyKey bad = keys.get(100);
      if (throwing) {
        bad.throwing = true;
      } else {
        bad.hash = 3; // another home, as a mutated key's would be
      }
      for (int i = 0; i < 200; i += 3) { // removals from the middle of probe runs (not k100)
        assertTrue(h.remove(keys.get(i)), "remove k" + i + (throwing ? " (throwing)" : ""));
      }
      for (int i = 0; i < 200; i++) {
        if (i % 3 != 0 && i != 100) {
          assertTrue(h.contains(keys.get(i)), "k" + i + " still waits");
        }
      }
      List<Integer> out = new ArrayList<>();
      while (!h.isEmpty()) {
        out.add(h.poll().id); // polls shrink the heap and rebuild its index
      }
      List<Integer> expected = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        if (i % 3 != 0) {
          expected.add(i);
        }
      }
      assertEquals(expected, out, throwing ? "throwing" : "changed");
    }
  }

  @Test
  void growAndShrink_keepEverything() {
    DelayHeap<Integer> h = new DelayHeap<>();
    for (int i = 100_000; i > 0; i--) {
      h.offerEarliest(i, i);
    }
    assertTrue(h.checkInvariants());
    for (int i = 1; i <= 100_000; i++) {
      assertEquals(i, h.poll());
    }
    assertTrue(h.isEmpty());
    assertTrue(h.checkInvariants());
  }

  @Test
  void deferredAdds_matchAReferenceModel_asSeenByEveryOtherMethod() {
    Random random = new Random(11);
    DelayHeap<Key> h = new DelayHeap<>();
    Map<Key, long[]> model = new HashMap<>(); // key -> {readyAt, seq}
    long seq = 0;
    for (int step = 0; step < 200_000; step++) {
      Key k = new Key(random.nextInt(3000));
      long at = random.nextInt(10_000);
      int op = random.nextInt(10);
      if (op < 6) { // mostly deferred adds, which the heap may apply later, in batches
        long[] cur = model.get(k);
        h.offerEarliestDeferred(k, at);
        if (cur == null) {
          model.put(k, new long[] {at, seq++});
        } else if (at < cur[0]) {
          cur[0] = at;
        }
      } else if (op == 6) {
        assertEquals(model.remove(k) != null, h.remove(k));
      } else if (op == 7) {
        assertEquals(model.containsKey(k), h.contains(k));
        if (model.containsKey(k)) {
          assertEquals(model.get(k)[0], h.readyAtOf(k));
        }
      } else if (!model.isEmpty()) {
        Key expected = model.entrySet().stream()
            .min((a, b) -> a.getValue()[0] != b.getValue()[0]
                ? Long.compare(a.getValue()[0], b.getValue()[0])
                : Long.compare(a.getValue()[1], b.getValue()[1]))
            .orElseThrow().getKey();
        assertEquals(model.get(expected)[0], h.headReadyAt(), "head before applying");
        assertEquals(expected, h.head());
        assertEquals(expected, h.poll());
        model.remove(expected);
      }
      assertEquals(model.isEmpty(), h.isEmpty());
      if (step % 997 == 0) {
        assertEquals(model.size(), h.size());
        assertTrue(h.checkInvariants(), "invariants at step " + step);
      }
    }
  }

  @Test
  void insertionNumbersRunningOut_areRenumbered_keepingTiesFirstInFirstOut() {
    DelayHeap<String> h = new DelayHeap<>();
    h.setNextSeq(Integer.MAX_VALUE - 5);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) { // crosses the end of the numbers: a renumbering
      String item = "t" + i;
      h.offerEarliest(item, i % 2 == 0 ? 10 : 20);
    }
    h.schedule("t0", 10); // queued behind every other 10
    for (int i = 2; i < 20; i += 2) {
      expected.add("t" + i);
    }
    expected.add("t0");
    for (int i = 1; i < 20; i += 2) {
      expected.add("t" + i);
    }
    assertTrue(h.checkInvariants());
    List<String> out = new ArrayList<>();
    while (!h.isEmpty()) {
      out.add(h.poll());
    }
    assertEquals(expected, out);
  }

  @Test
  void largeHeap_deferredAddsInBatches_deliverEverythingInOrder() {
    DelayHeap<Integer> h = new DelayHeap<>();
    h.offerEarliest(-1, 0); // a head, so that the adds below can be deferred
    Random random = new Random(5);
    int n = 200_000; // the index grows past the size from which batches read ahead
    long[] at = new long[n];
    for (int i = 0; i < n; i++) {
      at[i] = 1 + random.nextInt(1_000_000);
      h.offerEarliestDeferred(i, at[i]);
      h.offerEarliestDeferred(i, at[i] + 5); // later: merged away
    }
    assertEquals(n + 1, h.size());
    assertTrue(h.checkInvariants());
    assertEquals(-1, h.poll());
    long last = Long.MIN_VALUE;
    boolean[] seen = new boolean[n];
    for (int i = 0; i < n; i++) {
      long ready = h.headReadyAt();
      int item = h.poll();
      assertTrue(ready >= last, "ready-time order");
      assertEquals(at[item], ready, "kept the earlier time");
      assertTrue(!seen[item]);
      seen[item] = true;
      last = ready;
    }
    assertTrue(h.isEmpty());
    assertTrue(h.checkInvariants());
  }
}
