package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.ControllerMetricsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What connects a member to its controller: the keys a change of the ring gives it. */
class ShardRunnerTest {
  private final FakeClock clock = new FakeClock();
  private final InMemoryShardStore store = new InMemoryShardStore();
  private final Sharding config = Sharding.ring("ns", "ring", "m");
  private final List<ObjectKey> cached = new ArrayList<>();
  private final List<ObjectKey> queued = new ArrayList<>();
  private final ShardRunner runner = new ShardRunner(config,
      new ShardMember("m", store.as("m"), clock, config.leaseDuration().toNanos(),
          config.renewDeadline().toNanos()),
      ControllerMetricsProvider.noop(), () -> List.copyOf(cached), queued::add);

  /**
   * A delete filtered out as another member's (or before this member knew its share), whose
   * key the ring then gives to this member: the cache no longer lists it, yet it is queued, so
   * the delete is reconciled by its new owner (found in review: it was lost).
   */
  @Test
  void aDeleteFilteredBeforeTheKeyMovedHere_isQueuedOnTheGain() {
    ObjectKey deleted = ObjectKey.of("ns", "deleted");
    ObjectKey changed = ObjectKey.of("ns", "changed");
    cached.add(changed);
    runner.filtered(deleted, true); // its object is gone from the cache
    runner.filtered(changed, false); // still cached: the gain finds it there
    runner.tick(); // the first round: alone in the ring, every key is m's
    assertEquals(List.of(deleted, changed), queued);
    queued.clear();
    clock.step(Duration.ofSeconds(2));
    runner.tick();
    assertEquals(List.of(), queued, "no change of the ring, no gain");
  }
}
