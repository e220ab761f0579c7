package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The lines of a priority queue against a plain sorted list, with the invariants checked. */
class PriorityLinesTest {

  private static PriorityEntry<String> entry(String item, int priority, long readySince) {
    PriorityEntry<String> e = new PriorityEntry<>(item, priority);
    e.readySince = readySince;
    return e;
  }

  @Test
  void topIsTheHighestLinesHead_andTheAgeLineKeepsReadyOrder() {
    PriorityLines<String> r = new PriorityLines<>(true);
    assertNull(r.top());
    PriorityEntry<String> a = entry("a", 0, 1);
    PriorityEntry<String> b = entry("b", 5, 2);
    PriorityEntry<String> c = entry("c", 0, 3);
    r.append(a);
    r.append(b);
    r.append(c);
    assertSame(b, r.top());
    assertSame(a, r.oldest());
    r.moveTo(a, 5); // behind b in line 5; still the oldest
    assertSame(b, r.top());
    assertSame(a, r.oldest());
    r.remove(b);
    assertSame(a, r.top());
    r.remove(a);
    assertSame(c, r.top());
    assertSame(c, r.oldest());
    assertTrue(r.checkInvariants());
    r.remove(c);
    assertNull(r.top());
    assertNull(r.oldest());
    assertEquals(0, r.size());
    assertTrue(r.checkInvariants());
  }

  @Test
  void emptyLevels_areKeptUpTo32_andDroppedBeyond() {
    PriorityLines<String> r = new PriorityLines<>(false);
    List<PriorityEntry<String>> all = new ArrayList<>();
    for (int p = 0; p < 100; p++) {
      PriorityEntry<String> e = entry("p" + p, p, 0);
      r.append(e);
      all.add(e);
    }
    assertEquals(100, r.levelCount());
    for (PriorityEntry<String> e : all) {
      r.remove(e);
      assertTrue(r.checkInvariants());
    }
    assertEquals(PriorityLines.KEPT_LEVELS, r.levelCount());
    for (int p = 0; p < PriorityLines.KEPT_LEVELS; p++) {
      r.append(entry("again" + p, 99 - p, 0)); // the kept (highest) levels are reused
    }
    assertEquals(PriorityLines.KEPT_LEVELS, r.levelCount());
    assertTrue(r.checkInvariants());
  }

  /** Random appends, removals and rises against a list sorted by (priority desc, order). */
  @Test
  void randomOperations_matchASortedListModel() {
    SplittableRandom random = new SplittableRandom(42);
    PriorityLines<String> r = new PriorityLines<>(true);
    record Ref(PriorityEntry<String> e, long order) {}
    List<Ref> model = new ArrayList<>();
    long order = 0;
    for (int step = 0; step < 20_000; step++) {
      int op = random.nextInt(10);
      if (op < 4 || model.isEmpty()) {
        PriorityEntry<String> e = entry("e" + step, random.nextInt(-50, 50), step);
        r.append(e);
        model.add(new Ref(e, order++));
      } else if (op < 8) {
        model.sort(Comparator.comparingInt((Ref x) -> -x.e.priority).thenComparingLong(Ref::order));
        Ref head = model.remove(0);
        assertSame(head.e, r.top(), "step " + step);
        r.remove(head.e);
      } else {
        Ref ref = model.remove(random.nextInt(model.size()));
        int raised = ref.e.priority + 1 + random.nextInt(20);
        r.moveTo(ref.e, raised);
        model.add(new Ref(ref.e, order++)); // the tail of its new line
      }
      if (step % 997 == 0) {
        assertTrue(r.checkInvariants(), "step " + step);
      }
      assertEquals(model.size(), r.size());
    }
    assertTrue(r.checkInvariants());
  }
}
