package dev.workqueue.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ClusterEventTest {
  private static final Resource NODE = Resource.of("node");
  private static final Resource POD = Resource.of("pod");
  private static final Resource ASSIGNED_POD = POD.child("assignedPod");
  private static final int LABEL = 1 << 3;

  @Test
  void wildcardRegistration_matchesEverything() {
    ClusterEvent incoming = ClusterEvent.of(NODE, ClusterEvent.DELETE);
    assertTrue(ClusterEvent.WILDCARD.matches(incoming, true));
    assertTrue(ClusterEvent.WILDCARD.isWildcard());
    assertTrue(ClusterEvent.UNSCHEDULABLE_TIMEOUT.isWildcard());
    assertFalse(ClusterEvent.of(NODE, ClusterEvent.ALL).isWildcard());
  }

  @Test
  void wildcardResource_withSomeActions_matchesThoseActionsOfAnyResource() {
    ClusterEvent reg = ClusterEvent.of(Resource.WILDCARD, ClusterEvent.ADD);
    assertTrue(reg.matches(ClusterEvent.of(NODE, ClusterEvent.ADD), true));
    assertFalse(reg.matches(ClusterEvent.of(NODE, ClusterEvent.DELETE), true));
  }

  @Test
  void resourcesMustMatch_andActionsIntersect() {
    ClusterEvent reg = ClusterEvent.of(NODE, ClusterEvent.ADD | ClusterEvent.UPDATE);
    assertTrue(reg.matches(ClusterEvent.of(NODE, ClusterEvent.ADD), true));
    assertFalse(reg.matches(ClusterEvent.of(NODE, ClusterEvent.DELETE), true));
    assertFalse(reg.matches(ClusterEvent.of(POD, ClusterEvent.ADD), true));
  }

  @Test
  void parentResource_coversItsChildren_notTheOtherWayRound() {
    ClusterEvent onPod = ClusterEvent.of(POD, ClusterEvent.ADD);
    ClusterEvent onAssigned = ClusterEvent.of(ASSIGNED_POD, ClusterEvent.ADD);
    assertTrue(onPod.matches(onAssigned, true));
    assertFalse(onAssigned.matches(onPod, true));
    assertEquals("pod/assignedPod", ASSIGNED_POD.toString());
  }

  @Test
  void numericQuirk_rejectsAnIncomingMaskLargerThanTheRegisteredOne() {
    ClusterEvent reg = ClusterEvent.of(NODE, ClusterEvent.ADD);
    ClusterEvent addAndLabel = ClusterEvent.of(NODE, ClusterEvent.ADD | LABEL);
    assertFalse(reg.matches(addAndLabel, true)); // kube-compatible: 9 > 1
    assertTrue(reg.matches(addAndLabel, false)); // the masks do intersect
    ClusterEvent labelReg = ClusterEvent.of(NODE, LABEL | ClusterEvent.UPDATE);
    assertTrue(labelReg.matches(ClusterEvent.of(NODE, ClusterEvent.UPDATE), true));
  }

  @Test
  void labels_andValidation() {
    assertEquals("node/Add|Update", ClusterEvent.of(NODE, ClusterEvent.ADD | ClusterEvent.UPDATE)
        .label());
    assertEquals("node/Update|0x8", ClusterEvent.of(NODE, ClusterEvent.UPDATE | LABEL).label());
    assertThrows(IllegalArgumentException.class, () -> ClusterEvent.of(NODE, 0));
    assertThrows(IllegalArgumentException.class, () -> ClusterEvent.of(NODE, -1));
    assertThrows(NullPointerException.class, () -> ClusterEvent.of(null, 1));
    assertThrows(IllegalArgumentException.class, () -> Resource.of(""));
  }

  @Test
  void queue_numericActionMatchingFlag_changesWhatMovesAnItem() throws Exception {
    for (boolean quirk : new boolean[] {true, false}) {
      SchedulingQueue<String, Fixtures.Job> q =
          Fixtures.builder(new dev.workqueue.clock.FakeClock())
              .numericActionMatching(quirk)
              .hint("fit", ClusterEvent.of(NODE, ClusterEvent.ADD))
              .build();
      q.add(new Fixtures.Job("a", 0));
      q.requeueFailed(Fixtures.popNow(q), Rejectors.pending("fit"));
      q.onEvent(ClusterEvent.of(NODE, ClusterEvent.ADD | LABEL), null, null);
      assertEquals(quirk ? "activeQ:0; backoffQ:0; unschedulable:1"
          : "activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
    }
  }
}
