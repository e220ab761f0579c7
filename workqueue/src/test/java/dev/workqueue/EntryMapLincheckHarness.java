package dev.workqueue;

import dev.workqueue.testsupport.LincheckRuns;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;

/**
 * The Lincheck harness of the queue's {@link EntryMap}, checked against a set of keys: a
 * subclass chooses the first table's size and the scenarios. Each insert makes a fresh entry,
 * as the queue does; {@code remove} and {@code replace} act on the entry a {@code get} found,
 * as the queue's {@code done} and insert do. A removal that fails found its entry removed or
 * replaced in between, and looks again, so that it is a remove-if-present.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public abstract class EntryMapLincheckHarness {
  /** The interleavings explored for each hand-written scenario. */
  private static final int RACE_INVOCATIONS = 1_000;

  private final EntryMap<Integer> map;

  /** A map whose first table has {@code capacity} bins. */
  EntryMapLincheckHarness(int capacity) {
    map = new EntryMap<>(capacity);
  }

  @Operation
  public boolean putIfAbsent(@Param(name = "key") int key) {
    return map.putIfAbsent(key, new Entry<>(key, 0)) == null;
  }

  @Operation
  public boolean contains(@Param(name = "key") int key) {
    return map.get(key) != null;
  }

  /**
   * Removes the key's entry; if another was swapped in meanwhile, that one (a retry). A removal
   * that fails while its entry is still the map's is a defect (entries never come back), and
   * shows as an exception the specification never throws.
   */
  @Operation
  public boolean remove(@Param(name = "key") int key) {
    while (true) {
      Entry<Integer> e = map.get(key);
      if (e == null) {
        return false;
      }
      if (map.remove(e)) {
        return true;
      }
      if (map.get(key) == e) {
        throw new IllegalStateException("remove failed on an entry still in the map");
      }
    }
  }

  /** Swaps the key's entry for a fresh one if present: the key never looks absent meanwhile. */
  @Operation
  public void replace(@Param(name = "key") int key) {
    Entry<Integer> e = map.get(key);
    if (e != null) {
      map.replace(key, e, new Entry<>(key, 0));
    }
  }

  static void checkRace(Class<?> test, List<Actor> init, List<List<Actor>> parallel,
      List<Actor> post) {
    LincheckRuns.modelChecking(Spec.class, 0, RACE_INVOCATIONS)
        .addCustomScenario(new ExecutionScenario(init, parallel, post, null)).check(test);
  }

  static Actor actor(Class<?> test, String operation, int key) throws NoSuchMethodException {
    return new Actor(test.getMethod(operation, int.class), List.of(key),
        false, false, false, false, false);
  }

  /** The sequential specification: a set of keys. */
  public static class Spec {
    private final Set<Integer> keys = new HashSet<>();

    public boolean putIfAbsent(int key) {
      return keys.add(key);
    }

    public boolean contains(int key) {
      return keys.contains(key);
    }

    public boolean remove(int key) {
      return keys.remove(key);
    }

    public void replace(int key) {}

    @Override
    public boolean equals(Object o) {
      return o instanceof Spec s && keys.equals(s.keys);
    }

    @Override
    public int hashCode() {
      return keys.hashCode();
    }
  }
}
