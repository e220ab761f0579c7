package dev.workqueue.benchmarks;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.ClusterEvent;
import dev.workqueue.scheduling.QueueingHint;
import dev.workqueue.scheduling.Rejectors;
import dev.workqueue.scheduling.Resource;
import dev.workqueue.scheduling.SchedulingQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One cluster event over 5,000 items in the unschedulable pool, every item asking a hint that
 * says SKIP (so the pool stays as it is): the cost kube #138095 is about. With
 * {@code indexed=true} the pool's event index lets the event visit only the items whose
 * rejectors registered for it: here half of the pool was rejected by a plugin that only
 * cares about volumes.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar SchedulingEventBenchmark</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class SchedulingEventBenchmark {
  static final int POOLED = 5_000;
  static final ClusterEvent NODE_ADD = ClusterEvent.of(Resource.of("node"), ClusterEvent.ADD);
  static final ClusterEvent VOLUME_ADD =
      ClusterEvent.of(Resource.of("volume"), ClusterEvent.ADD);

  record Item(int id) {}

  @Param({"false", "true"})
  public boolean indexed;

  private SchedulingQueue<Integer, Item> queue;

  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    queue = SchedulingQueue.<Integer, Item>builder(Item::id)
        .clock(new FakeClock())
        .indexPoolByEvent(indexed)
        .hint("NodeFit", NODE_ADD, (item, oldObj, newObj) -> QueueingHint.SKIP)
        .hint("VolumeBinding", VOLUME_ADD, (item, oldObj, newObj) -> QueueingHint.SKIP)
        .build();
    for (int i = 0; i < POOLED; i++) {
      queue.add(new Item(i));
    }
    for (int i = 0; i < POOLED; i++) {
      var popped = queue.pop().orElseThrow();
      String rejector = popped.item().id() % 2 == 0 ? "NodeFit" : "VolumeBinding";
      queue.requeueFailed(popped, Rejectors.unschedulable(rejector));
    }
    if (!queue.pending().summary().contains("unschedulable:" + POOLED)) {
      throw new IllegalStateException("pool not filled: " + queue.pending().summary());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    queue.close();
  }

  @Benchmark
  public SchedulingQueue<Integer, Item> nodeAddOver5000Pooled() {
    queue.onEvent(NODE_ADD, null, null);
    return queue;
  }
}
