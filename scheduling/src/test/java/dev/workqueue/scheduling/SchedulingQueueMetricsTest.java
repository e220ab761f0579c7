package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.VOLUME_ADD;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static dev.workqueue.scheduling.Fixtures.stepSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import dev.workqueue.testing.RecordingSchedulingMetricsProvider;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SchedulingQueueMetricsTest {
  private final FakeClock clock = new FakeClock();
  private final RecordingSchedulingMetricsProvider m = new RecordingSchedulingMetricsProvider();
  private boolean gateOpen;

  private SchedulingQueue<String, Job> queue() {
    return Fixtures.builder(clock).name("q").metricsProvider(m)
        .hint("fit", NODE_ADD)
        .gate(Gate.of("quota", j -> gateOpen || !j.id().startsWith("g"), VOLUME_ADD))
        .build();
  }

  private void assertPending(int active, int backoff, int unschedulable, int gated) {
    assertEquals(List.of((double) active, (double) backoff, (double) unschedulable,
            (double) gated),
        List.of(m.pending("q", "active"), m.pending("q", "backoff"),
            m.pending("q", "unschedulable"), m.pending("q", "gated")));
  }

  @Test
  void metricsAreExactAfterEveryOperation() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    assertPending(0, 0, 0, 0);

    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    q.add(new Job("g1", 0));
    assertPending(2, 0, 0, 1);
    assertEquals(2, m.incoming("q", "active", ClusterEvent.ITEM_ADD));
    assertEquals(1, m.incoming("q", "unschedulable", ClusterEvent.ITEM_ADD));
    assertEquals(1.0, m.rejectedBy("q", "quota"));

    PoppedItem<String, Job> a = popNow(q);
    assertPending(1, 0, 0, 1);
    q.onEvent(NODE_ADD, null, null); // logged for a
    assertEquals(1.0, m.inFlightEvents("q"));
    q.requeueFailed(a, Rejectors.unschedulable("fit")); // accepted event: after back-off
    assertPending(1, 1, 0, 1);
    assertEquals(0.0, m.inFlightEvents("q"));
    assertEquals(1, m.incoming("q", "backoff", DefaultSchedulingQueue.SCHEDULE_ATTEMPT_FAILURE));

    PoppedItem<String, Job> b = popNow(q);
    q.requeueFailed(b, Rejectors.unschedulable("fit"));
    assertPending(0, 1, 1, 1);
    assertEquals(1,
        m.incoming("q", "unschedulable", DefaultSchedulingQueue.SCHEDULE_ATTEMPT_FAILURE));
    assertEquals(1.0, m.rejectedBy("q", "fit"));

    stepSeconds(clock, 2); // a's back-off is over
    assertPending(1, 0, 1, 1);
    assertEquals(1, m.incoming("q", "active", ClusterEvent.BACKOFF_COMPLETE));

    gateOpen = true;
    q.onEvent(VOLUME_ADD, null, null);
    assertPending(2, 0, 1, 0);
    assertEquals(0.0, m.rejectedBy("q", "quota"));
    assertEquals(1, m.incoming("q", "active", VOLUME_ADD.label()));

    q.onEvent(NODE_ADD, null, null); // b: back-off over, straight to active
    assertPending(3, 0, 0, 0);
    assertEquals(0.0, m.rejectedBy("q", "fit"));
    assertEquals(1, m.incoming("q", "active", NODE_ADD.label()));

    q.delete(new Job("a", 0));
    assertPending(2, 0, 0, 0);
    q.update(new Job("b", 0), new Job("b", 0, 1));
    assertPending(2, 0, 0, 0);
    q.done(popNow(q).id());
    q.done(popNow(q).id());
    q.done(12345); // unpaired: ignored
    assertPending(0, 0, 0, 0);

    q.add(new Job("c", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    assertPending(0, 1, 0, 0);
    q.activate(List.of(new Job("c", 0)));
    assertPending(1, 0, 0, 0);
    assertEquals(1, m.incoming("q", "active", ClusterEvent.FORCE_ACTIVATE.label()));
  }

  /** Adds {@code a}, pops it and fails it while fit's event arrives: backoffQ, backing off. */
  private SchedulingQueue<String, Job> withOneItemInBackoff() throws InterruptedException {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> a = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(a, Rejectors.unschedulable("fit"));
    return q;
  }

  @Test
  void popFromBackoff_updatesTheBackoffGauge() throws Exception {
    SchedulingQueue<String, Job> q = withOneItemInBackoff();
    assertPending(0, 1, 0, 0);
    popNow(q);
    assertPending(0, 0, 0, 0);
  }

  @Test
  void popFromBackoff_countsAnIncomingActiveItem_labelledPopFromBackoffQ() throws Exception {
    SchedulingQueue<String, Job> q = withOneItemInBackoff();
    assertEquals(1, m.incoming("q", "backoff", DefaultSchedulingQueue.SCHEDULE_ATTEMPT_FAILURE));
    popNow(q); // activeQ empty: taken from backoffQ before its back-off is over
    assertEquals(1, m.incoming("q", "active", ClusterEvent.POP_FROM_BACKOFF),
        "kube-scheduler counts scheduler_queue_incoming_pods_total{queue=active,"
            + " event=PopFromBackoffQ} for every pod its pop takes from backoffQ");
    assertEquals(1, m.incoming("q", "active", ClusterEvent.ITEM_ADD));
  }

  @Test
  void failureWorthRetrying_withItsGateClosed_countsAsGated_notAsBackoff() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    gateOpen = true;
    q.add(new Job("g1", 0));
    PoppedItem<String, Job> g1 = popNow(q);
    q.onEvent(NODE_ADD, null, null); // logged: fit's hint says QUEUE
    gateOpen = false;
    q.requeueFailed(g1, Rejectors.unschedulable("fit"));
    assertPending(0, 0, 0, 1);
    assertEquals(0, m.incoming("q", "backoff", DefaultSchedulingQueue.SCHEDULE_ATTEMPT_FAILURE));
    assertEquals(1,
        m.incoming("q", "unschedulable", DefaultSchedulingQueue.SCHEDULE_ATTEMPT_FAILURE));
    assertEquals(1.0, m.rejectedBy("q", "quota"));
    assertEquals(0.0, m.rejectedBy("q", "fit"));
  }

  @Test
  void unnamedQueue_recordsNothing() throws Exception {
    SchedulingQueue<String, Job> q = Fixtures.builder(clock).metricsProvider(m).build();
    q.add(new Job("a", 0));
    assertEquals(java.util.Set.of(), m.values().queues(), "no metric was created for any queue");
  }
}
