package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FakeApiServerTest {
  private final FakeClock clock = new FakeClock();
  private final FakeApiServer api =
      FakeApiServer.builder(clock).informerLag(Duration.ofMillis(100)).build();

  @Test
  void theCacheShowsTheClaimedPodIdleForTheLag_andTheRecycledPodOnlyAfterIt() throws Exception {
    List<PodRef> pods = api.addIdlePods("p", 2);
    assertEquals(pods, api.listIdle("p"), "new pods are in the cache at once");
    assertEquals(List.of(), api.listIdle("other"));

    PodRef a = pods.get(0);
    assertEquals(ClaimOutcome.CLAIMED, api.claim("p", a, ClaimRequest.of("r1")));
    assertEquals(FakeApiServer.Phase.STARTING, api.phase(a.name()));
    assertEquals("r1", api.ownerOf(a.name()));
    clock.stepMillis(99);
    assertEquals(pods, api.listIdle("p"), "stale");
    clock.stepMillis(1);
    assertEquals(List.of(pods.get(1)), api.listIdle("p"));

    api.recycle(a.name());
    assertNull(api.ownerOf(a.name()));
    clock.stepMillis(99);
    assertEquals(List.of(pods.get(1)), api.listIdle("p"), "not seen yet");
    clock.stepMillis(1);
    assertEquals(pods, api.listIdle("p"));
    assertEquals(6, api.listCalls());
  }

  @Test
  void aClaimOfAPodNotIdle_conflicts_andCountsAsADoubleHandOut() throws Exception {
    PodRef a = api.addIdlePods("p", 1).get(0);
    assertEquals(ClaimOutcome.CLAIMED, api.claim("p", a, ClaimRequest.of("r1")));
    assertEquals(ClaimOutcome.CONFLICT, api.claim("p", a, ClaimRequest.of("r2")));
    assertEquals(1, api.unexpectedPhaseAttempts());
    assertEquals(1, api.claimsOf(a.name()));
    assertEquals("r1", api.ownerOf(a.name()));
  }

  @Test
  void injectedConflictsAndFailures_happenOnce() throws Exception {
    PodRef a = api.addIdlePods("p", 1).get(0);
    api.injectConflict(a.name());
    RuntimeException boom = new IllegalStateException("500");
    assertEquals(1, api.pendingInjectedConflicts());
    assertEquals(ClaimOutcome.CONFLICT, api.claim("p", a, ClaimRequest.of("r1")));
    api.injectFailure(a.name(), boom);
    assertSame(boom, assertThrows(IllegalStateException.class,
        () -> api.claim("p", a, ClaimRequest.of("r1"))));
    assertEquals(ClaimOutcome.CLAIMED, api.claim("p", a, ClaimRequest.of("r1")));
    assertEquals(0, api.pendingInjectedConflicts());
    assertEquals(0, api.unexpectedPhaseAttempts());
    assertEquals(3, api.claimAttempts());
    assertEquals(1, api.conflictsAnswered());
  }

  @Test
  void aConflictFraction_marksAboutThatShareOfNewPods_withTheSameSeedTheSamePods() {
    FakeApiServer a = FakeApiServer.builder(clock).conflictOnFirstAttempt(0.3).seed(7).build();
    FakeApiServer b = FakeApiServer.builder(clock).conflictOnFirstAttempt(0.3).seed(7).build();
    a.addIdlePods("p", 1000);
    b.addIdlePods("p", 1000);
    int marked = a.pendingInjectedConflicts();
    assertEquals(marked, b.pendingInjectedConflicts());
    assertEquals(300, marked, 50);
  }

  @Test
  void scaleUpMarks_areCountedAndHandedToTheHandler() {
    int[] seen = new int[1];
    api.onScaleUp((pool, waiting) -> seen[0] += waiting);
    api.markScaleUpPending("p", 7);
    api.markScaleUpPending("p", 3);
    assertEquals(2, api.scaleUpMarks("p"));
    assertEquals(0, api.scaleUpMarks("q"));
    assertEquals(10, seen[0]);
  }

  @Test
  void badInput_isRejectedAtTheCall() throws Exception {
    PodRef a = api.addIdlePods("p", 1).get(0);
    assertThrows(IllegalStateException.class, () -> api.recycle(a.name()), "already Idle");
    assertThrows(IllegalArgumentException.class, () -> api.recycle("nope"));
    assertThrows(IllegalArgumentException.class, () -> api.addIdlePods("p", -1));
    assertThrows(IllegalArgumentException.class,
        () -> api.claim("q", a, ClaimRequest.of("r")), "wrong pool");
    assertThrows(IllegalArgumentException.class,
        () -> FakeApiServer.builder(clock).conflictOnFirstAttempt(1.5));
    assertThrows(IllegalArgumentException.class,
        () -> FakeApiServer.builder(clock).claimLatency(Duration.ofMillis(2), Duration.ofMillis(1)));
    assertThrows(IllegalArgumentException.class,
        () -> FakeApiServer.builder(clock).informerLag(Duration.ofMillis(-1)));
    assertEquals(ClaimOutcome.CLAIMED, api.claim("p", a, ClaimRequest.of("r")), "still works");
  }
}
