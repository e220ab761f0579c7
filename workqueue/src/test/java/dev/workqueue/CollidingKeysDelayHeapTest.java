package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.testsupport.CollidingKeys;
import dev.workqueue.testsupport.CollidingKeys.Counter;
import dev.workqueue.testsupport.CollidingKeys.Key;
import dev.workqueue.testsupport.CollidingKeys.Plain;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Keys that all share one {@code hashCode} (an attacker's: {@code "c0"} and {@code "an"} hash
 * alike, so every string of k such blocks does) must not make the waiting room quadratic: with
 * Comparable keys the {@code equals}/{@code compareTo} calls per key may grow only slowly with
 * the number of keys; with keys that are not Comparable it must stay correct.
 */
class CollidingKeysDelayHeapTest {

  /**
   * Adds every key (half at once, half deferred), looks each up, moves some earlier, removes
   * every other one and polls the rest, checking the answers; returns the key calls made.
   */
  static <K> void exercise(List<K> keys, Function<K, K> copy) {
    DelayHeap<K> h = new DelayHeap<>();
    int n = keys.size();
    Map<K, Long> model = new HashMap<>();
    for (int i = 0; i < n; i++) {
      long at = 1_000 + i;
      if (i % 2 == 0) {
        assertTrue(h.offerEarliest(keys.get(i), at));
      } else {
        h.offerEarliestDeferred(keys.get(i), at);
      }
      model.put(keys.get(i), at);
    }
    assertEquals(n, h.size());
    for (int i = 0; i < n; i++) {
      K k = copy.apply(keys.get(i));
      assertTrue(h.contains(k));
      assertEquals(model.get(k), h.readyAtOf(k));
    }
    for (int i = 0; i < n; i += 5) {
      K k = copy.apply(keys.get(i));
      assertTrue(h.offerEarliest(k, 500 + i)); // earlier: moves
      assertFalse(h.offerEarliest(k, 1_000_000)); // later: stays
      model.put(k, 500L + i);
    }
    for (int i = 1; i < n; i += 2) {
      assertTrue(h.remove(copy.apply(keys.get(i))));
      assertFalse(h.contains(copy.apply(keys.get(i))));
      model.remove(keys.get(i));
    }
    long last = Long.MIN_VALUE;
    while (!h.isEmpty()) {
      K k = h.poll();
      Long at = model.remove(k);
      assertTrue(at != null && at >= last, "polled in order: " + k);
      last = at;
    }
    assertTrue(model.isEmpty());
  }

  static double callsPerKey(int blocks) {
    Counter c = new Counter();
    List<Key> keys = new ArrayList<>();
    for (String s : CollidingKeys.names(blocks)) {
      keys.add(new Key(s, c));
    }
    exercise(keys, k -> new Key(k.name, c));
    return (double) c.calls / keys.size();
  }

  @Test
  void comparableCollidingKeys_costLogarithmicKeyCalls() {
    double small = callsPerKey(11); // 2,048 keys
    double large = callsPerKey(13); // 8,192 keys
    String what = String.format("equals+compareTo per key: %.1f for 2,048 keys, %.1f for 8,192",
        small, large);
    assertTrue(large <= 1.5 * small, what);
  }

  @Test
  void nonComparableCollidingKeys_stayCorrect() {
    List<Plain> keys = new ArrayList<>();
    for (String s : CollidingKeys.names(10)) {
      keys.add(new Plain(s));
    }
    exercise(keys, k -> new Plain(k.name()));
  }

  @Test
  void collidingKeys_throughGrowthAndShrink_keepInvariants() {
    Counter c = new Counter();
    List<Key> keys = new ArrayList<>();
    for (String s : CollidingKeys.names(9)) {
      keys.add(new Key(s, c));
    }
    DelayHeap<Key> h = new DelayHeap<>();
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < keys.size(); i++) {
        h.offerEarliest(keys.get(i), (i * 7919L) % 1000);
        if (i % 64 == 0) {
          assertTrue(h.checkInvariants(), "after add " + i);
        }
      }
      for (int i = 0; i < keys.size(); i += 2) {
        assertTrue(h.remove(keys.get(i)));
      }
      assertTrue(h.checkInvariants(), "after removals");
      int polled = 0;
      while (h.size() > 10) {
        h.poll();
        polled++;
        if (polled % 64 == 0) {
          assertTrue(h.checkInvariants(), "after poll " + polled);
        }
      }
    }
  }

  /** Overflowed items keep their payloads, move both ways and survive a renumbering. */
  @Test
  void collidingKeys_withPayloads_scheduleAndRenumber() {
    Counter c = new Counter();
    List<Key> keys = new ArrayList<>();
    for (String s : CollidingKeys.names(8)) {
      keys.add(new Key(s, c));
    }
    DelayHeap<Key> h = new DelayHeap<>(true);
    h.setNextSeq(Integer.MAX_VALUE - 100); // runs out of insertion numbers on the way
    Map<Key, Long> model = new HashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      h.offerEarliest(keys.get(i), 100, i);
      model.put(keys.get(i), 100L);
    }
    for (int i = 0; i < keys.size(); i += 3) {
      long at = i % 2 == 0 ? 50 + i : 500 + i; // earlier or later
      h.schedule(new Key(keys.get(i).name, c), at);
      model.put(keys.get(i), at);
    }
    assertTrue(h.checkInvariants());
    for (int i = 0; i < keys.size(); i += 7) {
      assertEquals(i, h.removeReturningPayload(new Key(keys.get(i).name, c)));
      model.remove(keys.get(i));
    }
    assertTrue(h.checkInvariants());
    long last = Long.MIN_VALUE;
    while (!h.isEmpty()) {
      long at = h.headReadyAt();
      assertTrue(at >= last);
      assertEquals(model.remove(h.poll()), at);
      last = at;
    }
    assertTrue(model.isEmpty());
  }
}
