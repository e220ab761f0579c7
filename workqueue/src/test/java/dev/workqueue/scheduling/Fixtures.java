package dev.workqueue.scheduling;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.RecordingMetricsProvider;
import java.time.Duration;

/** Shared test items, events and a recording metrics provider. */
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

  /** Records into a {@link RecordingMetricsProvider} under names with their labels. */
  static final class Recording implements SchedulingMetricsProvider {
    final RecordingMetricsProvider rec = new RecordingMetricsProvider();

    @Override
    public Gauge newPendingItemsMetric(String name, String queueLabel) {
      return rec.gauge(PENDING_ITEMS + "{queue=" + queueLabel + "}", name);
    }

    @Override
    public Counter newIncomingItemsMetric(String name, String queueLabel, String event) {
      return rec.counter(INCOMING_ITEMS + "{queue=" + queueLabel + ",event=" + event + "}", name);
    }

    @Override
    public Gauge newUnschedulableItemsMetric(String name, String rejector) {
      return rec.gauge(UNSCHEDULABLE_ITEMS + "{rejector=" + rejector + "}", name);
    }

    @Override
    public Gauge newInFlightEventsMetric(String name) {
      return rec.gauge(IN_FLIGHT_EVENTS, name);
    }

    double pending(String queue) {
      return rec.value("q", PENDING_ITEMS + "{queue=" + queue + "}");
    }

    long incoming(String queue, String event) {
      return rec.count("q", INCOMING_ITEMS + "{queue=" + queue + ",event=" + event + "}");
    }

    double rejector(String rejector) {
      return rec.value("q", UNSCHEDULABLE_ITEMS + "{rejector=" + rejector + "}");
    }

    double inFlightEvents() {
      return rec.value("q", IN_FLIGHT_EVENTS);
    }
  }
}
