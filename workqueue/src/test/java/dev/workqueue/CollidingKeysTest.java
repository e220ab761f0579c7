package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keys that all share one hash code must not make a queue quadratic: {@code "c0"} and {@code
 * "an"} have the same {@code String.hashCode}, so the 2^k names made of k such blocks share one
 * hash, and anyone who may create objects can make them. Every per-item structure must do
 * O(log n) {@code equals}/{@code compareTo} calls per operation for such keys when they are
 * {@code Comparable} (as the JDK's {@code HashMap} and {@code ConcurrentHashMap} do), and stay
 * correct when they are not.
 *
 * <p>The calls are counted, not timed: a key wrapper counts every {@code equals} and {@code
 * compareTo}. From n to 4n keys the calls per key may grow by at most 1.5x (O(n) per operation
 * grows 4x).
 */
class CollidingKeysTest {
  private static final int N = 1_024;
  private static final double MAX_GROWTH = 1.5;

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addGetDone_callsPerKeyGrowLogarithmically(QueueKind kind) throws InterruptedException {
    assertLogarithmic(kind, false, false);
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addGetDone_named_callsPerKeyGrowLogarithmically(QueueKind kind)
      throws InterruptedException {
    assertLogarithmic(kind, true, false);
  }

  @ParameterizedTest
  @EnumSource(value = QueueKind.class, names = {"PLAIN", "PLAIN_CROWDED"}, mode =
      EnumSource.Mode.EXCLUDE)
  void addAfter_waitingRoom_callsPerKeyGrowLogarithmically(QueueKind kind)
      throws InterruptedException {
    assertLogarithmic(kind, false, true);
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void keysThatShareAHashAndAreNotComparable_areEachHandedOutOnce(QueueKind kind)
      throws InterruptedException {
    AtomicLong calls = new AtomicLong();
    List<Key> keys = Key.colliding(300, calls, false);
    FakeClock clock = new FakeClock();
    WorkQueue<Key> q = kind.build(WorkQueue.<Key>builder().clock(clock), Key::group);
    for (Key k : keys) {
      q.add(k);
      q.add(k);
    }
    takeEachOnce(q, keys);
    if (kind.delays()) {
      DelayingQueue<Key> d = (DelayingQueue<Key>) q;
      for (Key k : keys) {
        d.addAfter(k, Duration.ofSeconds(1));
        d.addAfter(k, Duration.ofSeconds(2)); // the earlier ready time wins
      }
      assertEquals(keys.size(), d.waitingCount());
      clock.step(Duration.ofSeconds(1));
      takeEachOnce(q, keys);
    }
  }

  private static void takeEachOnce(WorkQueue<Key> q, List<Key> keys) throws InterruptedException {
    Set<Key> seen = new HashSet<>();
    for (int i = 0; i < keys.size(); i++) {
      Key k = q.poll(Duration.ZERO).orElseThrow();
      assertTrue(seen.add(k), () -> "handed out twice: " + k);
      q.done(k);
    }
    assertEquals(new HashSet<>(keys), seen);
    assertEquals(0, q.size());
  }

  private static void assertLogarithmic(QueueKind kind, boolean named, boolean delayed)
      throws InterruptedException {
    double small = callsPerKey(kind, N, named, delayed);
    double large = callsPerKey(kind, 4 * N, named, delayed);
    assertTrue(large / small <= MAX_GROWTH,
        () -> String.format("%s%s: equals/compareTo calls per key, %d keys: %.1f; %d keys: %.1f",
            kind, named ? " (named)" : "", N, small, 4 * N, large));
  }

  /**
   * Adds {@code n} colliding keys twice (the second a merge), then takes and finishes each;
   * with {@code delayed}, first adds each after a delay, cancels a quarter, and lets the rest
   * fall due. Returns the {@code equals}/{@code compareTo} calls per key.
   */
  private static double callsPerKey(QueueKind kind, int n, boolean named, boolean delayed)
      throws InterruptedException {
    AtomicLong calls = new AtomicLong();
    List<Key> keys = Key.colliding(n, calls, true);
    FakeClock clock = new FakeClock();
    WorkQueueBuilder<Key> b = WorkQueue.<Key>builder().clock(clock);
    if (named) {
      b.name("colliding-" + kind).metricsProvider(new RecordingMetricsProvider());
    }
    WorkQueue<Key> q = kind.build(b, Key::group);
    int expected = n;
    if (delayed) {
      DelayingQueue<Key> d = (DelayingQueue<Key>) q;
      for (Key k : keys) {
        d.addAfter(k, Duration.ofSeconds(1 + k.index % 7));
      }
      for (int i = 0; i < n; i += 4) {
        d.cancel(keys.get(i));
      }
      clock.step(Duration.ofSeconds(8));
      expected = n - (n + 3) / 4;
    } else {
      for (Key k : keys) {
        q.add(k);
      }
      for (Key k : keys) {
        q.add(k);
      }
    }
    for (int i = 0; i < expected; i++) {
      Optional<Key> k = q.poll(Duration.ZERO);
      assertTrue(k.isPresent());
      q.done(k.get());
    }
    assertEquals(0, q.size());
    q.shutDown();
    return (double) calls.get() / n;
  }

  /** A key whose {@code equals} and {@code compareTo} count their calls. */
  static class Key {
    final String name;
    final int index;
    final AtomicLong calls;

    Key(String name, int index, AtomicLong calls) {
      this.name = name;
      this.index = index;
      this.calls = calls;
    }

    /**
     * {@code n} keys whose names all share one {@code String.hashCode}: blocks of {@code "c0"}
     * and {@code "an"}, 13 of them (8,192 names of one length), in the namespace {@code "ns/"}.
     */
    static List<Key> colliding(int n, AtomicLong calls, boolean comparable) {
      List<Key> keys = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        StringBuilder s = new StringBuilder("ns/");
        for (int bit = 12; bit >= 0; bit--) {
          s.append((i >>> bit & 1) == 0 ? "c0" : "an");
        }
        keys.add(comparable ? new ComparableKey(s.toString(), i, calls)
            : new Key(s.toString(), i, calls));
      }
      return keys;
    }

    /** The fair kind's dimension: a few groups. */
    Object group() {
      return index % 3;
    }

    @Override
    public final boolean equals(Object o) {
      calls.incrementAndGet();
      return o instanceof Key k && k.name.equals(name);
    }

    @Override
    public final int hashCode() {
      return name.hashCode();
    }

    @Override
    public final String toString() {
      return name;
    }
  }

  /** A {@link Key} that is {@code Comparable}, as {@code String} and {@code ObjectKey} are. */
  static final class ComparableKey extends Key implements Comparable<ComparableKey> {
    ComparableKey(String name, int index, AtomicLong calls) {
      super(name, index, calls);
    }

    @Override
    public int compareTo(ComparableKey o) {
      calls.incrementAndGet();
      return name.compareTo(o.name);
    }
  }
}
