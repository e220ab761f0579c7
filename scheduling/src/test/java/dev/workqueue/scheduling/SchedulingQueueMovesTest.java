package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.VOLUME_ADD;
import static dev.workqueue.scheduling.Fixtures.builder;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static dev.workqueue.scheduling.Fixtures.stepSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Finer points of the moves between the parts. */
@Timeout(10)
class SchedulingQueueMovesTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void gatedItem_isRecheckedByTheTimeoutFlush_andWaitsAnotherFullStayIfStillGated() {
    List<Long> checks = new ArrayList<>();
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("never", j -> checks.add(clock.nanoTime() / 1_000_000_000L) && false,
            VOLUME_ADD))
        .build();
    q.add(new Job("g", 0)); // gated at 0 s
    stepSeconds(clock, 300); // 5 min: not strictly longer
    assertEquals(List.of(0L), checks);
    stepSeconds(clock, 30); // 330 s: re-checked, still gated
    assertEquals(List.of(0L, 330L), checks);
    stepSeconds(clock, 300); // 630 s: stayed exactly 300 s since the last flush
    assertEquals(List.of(0L, 330L), checks);
    stepSeconds(clock, 30); // 660 s
    assertEquals(List.of(0L, 330L, 660L), checks);
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void updateOfAGatedItem_runsTheGatesAgain() {
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("ready", j -> j.version() > 0, VOLUME_ADD))
        .build();
    q.add(new Job("g", 0));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    q.update(new Job("g", 0), new Job("g", 0, 1));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void backoffItemWhoseGateClosed_landsInThePoolGated() throws Exception {
    boolean[] open = {true};
    SchedulingQueue<String, Job> q = builder(clock).popFromBackoff(false)
        .gate(Gate.of("window", j -> open[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    open[0] = false;
    stepSeconds(clock, 2);
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    open[0] = true;
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void popFromBackoff_withinOneWindow_followsTheActiveOrder() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("low", 1));
    q.add(new Job("high", 2));
    PoppedItem<String, Job> high = popNow(q);
    PoppedItem<String, Job> low = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(low, Rejectors.unschedulable("fit")); // fails first...
    stepSeconds(clock, 0.5);
    q.requeueFailed(high, Rejectors.unschedulable("fit")); // ...same 1 s window
    assertEquals("activeQ:0; backoffQ:2; unschedulable:0", q.pending().summary());
    assertEquals("high", popNow(q).key());
    assertEquals("low", popNow(q).key());
  }

  @Test
  void withoutAlignment_earlierExpiryComesFirst() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD)
        .alignBackoffToWindow(false).build();
    q.add(new Job("low", 1));
    q.add(new Job("high", 2));
    PoppedItem<String, Job> high = popNow(q);
    PoppedItem<String, Job> low = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(low, Rejectors.unschedulable("fit"));
    stepSeconds(clock, 0.5);
    q.requeueFailed(high, Rejectors.unschedulable("fit"));
    assertEquals("low", popNow(q).key());
  }

  @Test
  void pendingAndUnschedulableRejectors_thePendingOneWins() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD)
        .hint("bind", NODE_ADD)
        .build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(p, new Rejectors(Set.of("fit"), Set.of("bind")));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void hintOfAnotherRejector_doesNotMoveTheItem() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD)
        .hint("volume", VOLUME_ADD)
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("volume"));
    q.onEvent(NODE_ADD, null, null);
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void parentResourceRegistration_movesOnAChildEvent() throws Exception {
    Resource pod = Resource.of("pod");
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("affinity", ClusterEvent.of(pod, ClusterEvent.DELETE))
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.pending("affinity"));
    q.onEvent(ClusterEvent.of(pod.child("assigned"), ClusterEvent.DELETE), null, null);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void wildcardRegistration_seesEveryEvent() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("anything", ClusterEvent.WILDCARD)
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.pending("anything"));
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void errorsResetByARejection_backoffUsesTheUnschedulableCount() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).popFromBackoff(false)
        .alignBackoffToWindow(false).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    for (int i = 0; i < 3; i++) { // errors: 1 s, 2 s, 4 s
      q.requeueFailed(popNow(q), Rejectors.none());
      stepSeconds(clock, 4);
    }
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(p, Rejectors.unschedulable("fit")); // 1st rejection: 1 s, errors reset
    stepSeconds(clock, 1);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }
  // ---------------------------------------------------------------- hint evaluation order

  /** Two unschedulable rejectors whose hints both say QUEUE to NODE_ADD, recording calls. */
  private SchedulingQueueBuilder<String, Job> twoQueueingHints(List<String> calls) {
    return builder(clock)
        .hint("fit", NODE_ADD, (j, o, n) -> {
          calls.add("fit");
          return QueueingHint.QUEUE;
        })
        .hint("spread", NODE_ADD, (j, o, n) -> {
          calls.add("spread");
          return QueueingHint.QUEUE;
        });
  }

  @Test
  void event_withNoPendingRejector_stopsAtTheFirstHintThatSaysQueue() throws Exception {
    List<String> calls = new ArrayList<>();
    SchedulingQueue<String, Job> q = twoQueueingHints(calls).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit", "spread"));
    q.onEvent(NODE_ADD, null, null);
    assertEquals(List.of("fit"), calls, "kube's isPodWorthRequeuing returns at the first QUEUE"
        + " when no pending rejector could make it 'immediately'");
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
  }

  @Test
  void event_withAPendingRejector_asksOnUntilThePendingOneSaysQueue() throws Exception {
    List<String> calls = new ArrayList<>();
    SchedulingQueue<String, Job> q = twoQueueingHints(calls).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), new Rejectors(Set.of("fit"), Set.of("spread")));
    q.onEvent(NODE_ADD, null, null);
    assertEquals(List.of("fit", "spread"), calls);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void failure_replaysTheLoggedEvents_onlyUntilOneSaysAfterBackoff() throws Exception {
    List<String> calls = new ArrayList<>();
    SchedulingQueue<String, Job> q = twoQueueingHints(calls).build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, "n1");
    q.onEvent(NODE_ADD, null, "n2");
    q.requeueFailed(p, Rejectors.unschedulable("fit", "spread"));
    assertEquals(List.of("fit"), calls, "kube's determineSchedulingHintForInFlightPod stops at"
        + " the first event worth requeuing when the item has no pending rejector");
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
  }

  @Test
  void updateOfAPooledItem_withNoPendingRejector_stopsAtTheFirstUpdateEventThatSaysQueue()
      throws Exception {
    List<String> calls = new ArrayList<>();
    ClusterEvent labels = new ClusterEvent(Resource.ITEM, ClusterEvent.UPDATE, "ItemLabels");
    SchedulingQueue<String, Job> q = builder(clock)
        .updateEvents((o, n) -> List.of(ClusterEvent.ITEM_UPDATE, labels))
        .hint("self", ClusterEvent.ITEM_UPDATE, (j, o, n) -> {
          calls.add("self");
          return QueueingHint.QUEUE;
        })
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("self"));
    q.update(new Job("a", 0), new Job("a", 0, 1));
    assertEquals(List.of("self"), calls, "both update events match the hint's registration;"
        + " the first QUEUE settles it");
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
  }
  // ---------------------------------------------------------------- gates on the way into backoffQ

  @Test
  void failureWorthRetrying_whoseGateClosedDuringTheAttempt_isGated_notPutInBackoffQ()
      throws Exception {
    boolean[] open = {true};
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD)
        .gate(Gate.of("quota", j -> open[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, null); // worth retrying after back-off
    open[0] = false;
    q.requeueFailed(p, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary(),
        "kube's moveToBackoffQ runs the PreEnqueue plugins first: a pop must not find it");
    open[0] = true;
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals("a", popNow(q).key());
  }

  @Test
  void errorWhileTheGateIsClosed_isGated_notPutInBackoffQ() throws Exception {
    boolean[] open = {true};
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("quota", j -> open[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    open[0] = false;
    q.requeueFailed(p, Rejectors.none());
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void updateWhoseHintSaysQueue_whileBackingOff_withTheGateClosed_isGated() throws Exception {
    boolean[] open = {true};
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("self", ClusterEvent.ITEM_UPDATE)
        .gate(Gate.of("quota", j -> open[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("self")); // no event: pooled
    open[0] = false;
    q.update(new Job("a", 0), new Job("a", 0, 1)); // QUEUE, still backing off
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void withPopFromBackoff_gatesRunOnTheWayIntoBackoffQ_notAgainOnTheWayOut() throws Exception {
    boolean[] open = {true};
    List<String> checked = new ArrayList<>();
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD)
        .gate(Gate.of("quota", j -> checked.add(j.id()) && open[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(a, Rejectors.unschedulable("fit"));
    assertEquals(List.of("a", "b", "a"), checked, "on add, add, and into backoffQ");
    open[0] = false;
    stepSeconds(clock, 2); // back-off over: the flush moves a to activeQ without the gates,
    // as kube's flushBackoffQCompleted does (it could have been popped from backoffQ anyway)
    assertEquals(List.of("a", "b", "a"), checked);
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());
  }
}
