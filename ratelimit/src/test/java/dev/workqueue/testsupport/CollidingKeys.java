package dev.workqueue.testsupport;

import java.util.ArrayList;
import java.util.List;

/**
 * Keys that all share one {@code hashCode}, as an attacker makes them: {@code "c0"} and {@code
 * "an"} hash alike, so every string of k such blocks does. For the tests that count the {@code
 * equals}/{@code compareTo} calls a structure makes for them (O(log n) per operation for
 * Comparable keys, as the JDK's maps) and check that it stays correct for keys that are not.
 */
public final class CollidingKeys {
  private CollidingKeys() {}

  /** Counts the calls of {@code equals} and {@code compareTo} of the keys made with it. */
  public static final class Counter {
    public long calls;
  }

  /** A Comparable key whose hash is its name's; counts its calls. */
  public static final class Key implements Comparable<Key> {
    public final String name;
    private final Counter counter;

    public Key(String name, Counter counter) {
      this.name = name;
      this.counter = counter;
    }

    @Override
    public int hashCode() {
      return name.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      counter.calls++;
      return o instanceof Key k && k.name.equals(name);
    }

    @Override
    public int compareTo(Key o) {
      counter.calls++;
      return name.compareTo(o.name);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /** A key that is not Comparable; its hash is its name's. */
  public record Plain(String name) {}

  /** The 2^blocks strings of {@code blocks} blocks of "c0" or "an": one hashCode for all. */
  public static List<String> names(int blocks) {
    List<String> names = new ArrayList<>();
    for (int bits = 0; bits < 1 << blocks; bits++) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < blocks; i++) {
        b.append((bits >>> i & 1) == 0 ? "c0" : "an");
      }
      names.add(b.toString());
    }
    if (names.stream().mapToInt(String::hashCode).distinct().count() != 1) {
      throw new AssertionError("the names do not share one hash code");
    }
    return names;
  }
}
