package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
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
  private final ShardRunner ring = new ShardRunner(config,
      new ShardMember("m", store.as("m"), clock, config.leaseDuration().toNanos(),
          config.renewDeadline().toNanos()),
      ControllerMetricsProvider.noop());
  private final ShardParticipant runner = ring.join(true, () -> List.copyOf(cached), queued::add);

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
    ring.tick(); // the first round: alone in the ring, every key is m's
    assertEquals(List.of(deleted, changed), queued);
    queued.clear();
    clock.step(Duration.ofSeconds(2));
    ring.tick();
    assertEquals(List.of(), queued, "no change of the ring, no gain");
  }

  /**
   * One ring for two controllers (an operator's): each one's gains go to its own queue, from
   * its own cache, and the ring's metrics count over both.
   */
  @Test
  void oneRingOfTwoControllers_queuesEachOnesKeysInItsOwnQueue_andCountsOverBoth() {
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    ShardRunner shared = new ShardRunner(config, new ShardMember("m", store.as("m"), clock,
        config.leaseDuration().toNanos(), config.renewDeadline().toNanos()), metrics);
    ObjectKey both = ObjectKey.of("ns", "both");
    List<ObjectKey> firstQueued = new ArrayList<>();
    List<ObjectKey> secondQueued = new ArrayList<>();
    ShardParticipant first = shared.join(false, () -> List.of(both, ObjectKey.of("ns", "a")),
        firstQueued::add);
    shared.join(false, () -> List.of(both), secondQueued::add);
    first.filtered(ObjectKey.of("ns", "gone"), true);
    first.start("x"); // not its own ring: the operator starts it
    assertEquals(List.of(), firstQueued);
    shared.tick();
    assertEquals(List.of(ObjectKey.of("ns", "gone"), both, ObjectKey.of("ns", "a")),
        firstQueued);
    assertEquals(List.of(both), secondQueued);
    assertEquals(3.0, metrics.value("ring", ControllerMetricsProvider.SHARD_KEYS_OWNED),
        "cached keys owned, over both");
    assertEquals(4, metrics.count("ring", ControllerMetricsProvider.SHARD_HANDOVERS));
    assertEquals(1.0, metrics.value("ring", ControllerMetricsProvider.SHARD_MEMBERS));
  }
}
