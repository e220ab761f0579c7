package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import dev.workqueue.testing.RecordingSchedulingMetricsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class InFlightLogTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void eventsAreDropped_onceNoAttemptNeedsThem() throws Exception {
    RecordingSchedulingMetricsProvider m = new RecordingSchedulingMetricsProvider();
    SchedulingQueue<String, Job> q = Fixtures.builder(clock).name("q").metricsProvider(m)
        .hint("fit", NODE_ADD).build();
    q.add(new Job("a", 1));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    q.onEvent(NODE_ADD, null, 1);
    PoppedItem<String, Job> b = popNow(q);
    q.onEvent(NODE_ADD, null, 2);
    assertEquals(2.0, m.inFlightEvents("q"));
    q.done(a.id()); // b still needs event 2 only
    assertEquals(1.0, m.inFlightEvents("q"));
    q.done(b.id());
    assertEquals(0.0, m.inFlightEvents("q"));
  }

  @Test
  void boundedLog_dropsTheOldest_andAnAttemptThatMissedEventsRetriesAfterBackoff()
      throws Exception {
    RecordingSchedulingMetricsProvider m = new RecordingSchedulingMetricsProvider();
    SchedulingQueue<String, Job> q = Fixtures.builder(clock).name("q").metricsProvider(m)
        .maxInFlightEvents(2)
        .hint("fit", NODE_ADD, (job, o, n) -> QueueingHint.SKIP)
        .build();
    q.add(new Job("a", 1));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    PoppedItem<String, Job> b = popNow(q);
    for (int i = 0; i < 5; i++) {
      q.onEvent(NODE_ADD, null, i);
      assertTrue(m.inFlightEvents("q") <= 2.0);
    }
    assertEquals(2.0, m.inFlightEvents("q"));
    // every hint says SKIP, but a missed events: it must not be parked on a guess
    q.requeueFailed(a, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    q.done(b.id());
    assertEquals(0.0, m.inFlightEvents("q"));
  }

  @Test
  void eventsForAnotherItem_doNotConcernThisOne() throws Exception {
    SchedulingQueue<String, Job> q = Fixtures.builder(clock)
        .hint("self", ClusterEvent.ITEM_UPDATE).build();
    q.add(new Job("a", 1));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    PoppedItem<String, Job> b = popNow(q);
    q.update(new Job("b", 0), new Job("b", 0, 1)); // logged for b only
    q.requeueFailed(a, Rejectors.pending("self"));
    q.requeueFailed(b, Rejectors.pending("self"));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:1", q.pending().summary());
    assertEquals("b", q.pending().items().get(0).id());
  }
}
