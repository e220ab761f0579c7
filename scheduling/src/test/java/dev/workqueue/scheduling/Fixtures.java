package dev.workqueue.scheduling;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;

/** Shared test items and events. */
final class Fixtures {
  private Fixtures() {}

  /** A test item: key {@code id}, a priority and a version (to tell updates apart). */
  record Job(String id, int priority, int version) {
    Job(String id, int priority) {
      this(id, priority, 0);
    }

    Job next() {
      return new Job(id, priority, version + 1);
    }
  }

  static final Resource NODE = Resource.of("node");
  static final ClusterEvent NODE_ADD = ClusterEvent.of(NODE, ClusterEvent.ADD);
  static final ClusterEvent NODE_UPDATE = ClusterEvent.of(NODE, ClusterEvent.UPDATE);
  static final Resource VOLUME = Resource.of("volume");
  static final ClusterEvent VOLUME_ADD = ClusterEvent.of(VOLUME, ClusterEvent.ADD);

  static SchedulingQueueBuilder<String, Job> builder(FakeClock clock) {
    return SchedulingQueue.<String, Job>builder(Job::id).clock(clock).priority(Job::priority);
  }

  static PoppedItem<String, Job> popNow(SchedulingQueue<String, Job> q)
      throws InterruptedException {
    return q.pop().orElseThrow();
  }

  static void stepSeconds(FakeClock clock, double seconds) {
    clock.step(Duration.ofNanos((long) (seconds * 1e9)));
  }
}
