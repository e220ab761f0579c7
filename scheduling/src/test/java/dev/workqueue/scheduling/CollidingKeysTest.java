package dev.workqueue.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.testsupport.CollidingKeys;
import dev.workqueue.testsupport.CollidingKeys.Counter;
import dev.workqueue.testsupport.CollidingKeys.Key;
import dev.workqueue.testsupport.CollidingKeys.Plain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Keys that all share one {@code hashCode} ({@code "c0"} and {@code "an"} hash alike, so every
 * string of k such blocks does) must not make the keyed heap or the scheduling queue
 * quadratic: with Comparable keys the {@code equals}/{@code compareTo} calls per key may grow
 * only slowly with the number of keys; with keys that are not Comparable all stays correct.
 */
class CollidingKeysTest {

  /** An element of the heap or item of the queue: a key and a priority. */
  record Item<K>(K key, int priority) {}

  /** Adds, looks up, updates, deletes every other key, pops the rest, checking the answers. */
  static <K> void exerciseHeap(List<K> keys, Function<K, K> copy) {
    KeyedHeap<K, Item<K>> h = new KeyedHeap<>(Item::key, Comparator.comparingInt(Item::priority));
    Map<K, Integer> model = new HashMap<>();
    int n = keys.size();
    for (int i = 0; i < n; i++) {
      int p = (int) ((i * 7919L) % n);
      assertNull(h.addOrUpdate(new Item<>(keys.get(i), p)));
      model.put(keys.get(i), p);
    }
    for (int i = 0; i < n; i++) {
      K k = copy.apply(keys.get(i));
      assertTrue(h.has(k));
      assertEquals(model.get(k), h.get(k).priority());
    }
    for (int i = 0; i < n; i += 3) {
      K k = copy.apply(keys.get(i));
      assertEquals(model.get(k), h.addOrUpdate(new Item<>(k, -i)).priority());
      model.put(k, -i);
    }
    for (int i = 1; i < n; i += 2) {
      K k = copy.apply(keys.get(i));
      assertEquals(model.remove(k), h.delete(k).priority());
      assertNull(h.get(k));
    }
    int last = Integer.MIN_VALUE;
    for (Item<K> e; (e = h.pop()) != null; last = e.priority()) {
      assertTrue(e.priority() >= last);
      assertEquals(model.remove(e.key()), e.priority());
    }
    assertTrue(model.isEmpty());
  }

  static double heapCallsPerKey(int blocks) {
    Counter c = new Counter();
    List<Key> keys = new ArrayList<>();
    CollidingKeys.names(blocks).forEach(s -> keys.add(new Key(s, c)));
    exerciseHeap(keys, k -> new Key(k.name, c));
    return (double) c.calls / keys.size();
  }

  @Test
  void keyedHeap_comparableCollidingKeys_costLogarithmicKeyCalls() {
    double small = heapCallsPerKey(11); // 2,048 keys
    double large = heapCallsPerKey(13); // 8,192 keys
    String what = String.format("equals+compareTo per key: %.1f for 2,048 keys, %.1f for 8,192",
        small, large);
    assertTrue(large <= 1.5 * small, what);
  }

  @Test
  void keyedHeap_nonComparableCollidingKeys_stayCorrect() {
    List<Plain> keys = new ArrayList<>();
    CollidingKeys.names(10).forEach(s -> keys.add(new Plain(s)));
    exerciseHeap(keys, k -> new Plain(k.name()));
  }

  /** Adds every item, looks each up, deletes every other one, pops and finishes the rest. */
  static <K> void exerciseQueue(List<K> keys, Function<K, K> copy) throws InterruptedException {
    SchedulingQueue<K, Item<K>> q = SchedulingQueue.<K, Item<K>>builder(Item::key)
        .clock(new FakeClock()).priority(Item::priority).build();
    int n = keys.size();
    for (int i = 0; i < n; i++) {
      q.add(new Item<>(keys.get(i), i % 100));
    }
    for (int i = 0; i < n; i++) {
      assertTrue(q.lookup(copy.apply(keys.get(i))).isPresent());
    }
    for (int i = 1; i < n; i += 2) {
      assertTrue(q.delete(new Item<>(copy.apply(keys.get(i)), 0)));
    }
    for (int i = 0; i < n; i += 2) {
      PoppedItem<K, Item<K>> p = q.pop().orElseThrow();
      assertTrue(q.done(p.id()));
    }
    assertEquals(0, q.counts().active());
    q.close();
  }

  static double queueCallsPerKey(int blocks) throws InterruptedException {
    Counter c = new Counter();
    List<Key> keys = new ArrayList<>();
    CollidingKeys.names(blocks).forEach(s -> keys.add(new Key(s, c)));
    exerciseQueue(keys, k -> new Key(k.name, c));
    return (double) c.calls / keys.size();
  }

  @Test
  void schedulingQueue_comparableCollidingKeys_costLogarithmicKeyCalls()
      throws InterruptedException {
    double small = queueCallsPerKey(11); // 2,048 keys
    double large = queueCallsPerKey(13); // 8,192 keys
    String what = String.format("equals+compareTo per key: %.1f for 2,048 keys, %.1f for 8,192",
        small, large);
    assertTrue(large <= 1.5 * small, what);
  }

  @Test
  void schedulingQueue_nonComparableCollidingKeys_stayCorrect() throws InterruptedException {
    List<Plain> keys = new ArrayList<>();
    CollidingKeys.names(9).forEach(s -> keys.add(new Plain(s)));
    exerciseQueue(keys, k -> new Plain(k.name()));
  }
}
