package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RendezvousTest {
  private static final List<String> THREE = List.of("replica-a", "replica-b", "replica-c");

  @Test
  void ownersAreBalanced_within1Point5_over3000Keys() {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      counts.merge(Rendezvous.owner("ns/object-" + i, THREE), 1, Integer::sum);
    }
    int max = counts.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int min = counts.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
    assertEquals(3, counts.size());
    assertTrue(max <= 1.5 * min, counts.toString());
  }

  @Test
  void aJoinMovesKeysOnlyToTheNewMember_aboutAQuarter() {
    List<String> four = List.of("replica-a", "replica-b", "replica-c", "replica-d");
    int moved = 0;
    for (int i = 0; i < 3000; i++) {
      String key = "ns/object-" + i;
      String before = Rendezvous.owner(key, THREE);
      String after = Rendezvous.owner(key, four);
      if (!before.equals(after)) {
        assertEquals("replica-d", after, key);
        moved++;
      }
    }
    assertTrue(moved > 3000 / 4 * 0.8 && moved < 3000 / 4 * 1.2, "moved " + moved);
  }

  @Test
  void theOwnerDependsOnTheNamesAlone_notOnTheirOrder_orTheJvm() {
    String owner = Rendezvous.owner("default/app-1", THREE);
    assertEquals(owner, Rendezvous.owner("default/app-1",
        List.of("replica-c", "replica-a", "replica-b")));
    // pinned: a change of hash would move every key of every ring when replicas of two
    // versions run side by side during a rolling update
    assertEquals(0x49352275aa2d9fefL, Rendezvous.hash("default/app-1"));
    assertEquals(List.of("replica-a", "replica-c", "replica-a", "replica-b", "replica-b",
        "replica-a"), java.util.stream.IntStream.range(0, 6)
        .mapToObj(i -> Rendezvous.owner("ns/object-" + i, THREE)).toList());
    assertNull(Rendezvous.owner("k", List.of()));
  }
}
