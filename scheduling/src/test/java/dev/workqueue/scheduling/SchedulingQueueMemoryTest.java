package dev.workqueue.scheduling;

import static dev.workqueue.testsupport.Reachability.collected;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Nothing the caller dropped stays reachable from the scheduling queue. */
class SchedulingQueueMemoryTest {
  private final FakeClock clock = new FakeClock();

  /** A key with identity: only the test's reference and the queue's keep it alive. */
  record Key(int id) {}

  @Test
  void schedulingQueue_letsGoOfDoneFailedAndDeletedItems() throws Exception {
    ClusterEvent nodeAdd = ClusterEvent.of(Resource.of("node"), ClusterEvent.ADD);
    SchedulingQueue<Integer, Key> q = SchedulingQueue.<Integer, Key>builder(Key::id)
        .clock(clock).hint("fit", nodeAdd).build();
    List<WeakReference<Key>> refs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Key k = new Key(i);
      refs.add(new WeakReference<>(k));
      q.add(k);
    }
    PoppedItem<Integer, Key> first = q.pop().orElseThrow();
    q.onEvent(nodeAdd, null, null); // logged for the attempt in flight
    q.done(first.id());
    PoppedItem<Integer, Key> second = q.pop().orElseThrow();
    q.requeueFailed(second, Rejectors.unschedulable("fit")); // into the pool
    assertTrue(q.delete(new Key(second.key())));
    assertTrue(q.delete(new Key(2))); // never popped
    first = null;
    second = null;
    for (WeakReference<Key> ref : refs) {
      assertTrue(collected(ref), "the scheduling queue still references " + ref.get());
    }
    assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary());
    q.close();
  }
}
