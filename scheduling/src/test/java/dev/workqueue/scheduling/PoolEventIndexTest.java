package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.VOLUME_ADD;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class PoolEventIndexTest {
  private static final ClusterEvent QUOTA = ClusterEvent.of(Resource.of("quota"), 1);

  private SchedulingQueue<String, Job> queue(FakeClock clock, boolean indexed,
      AtomicInteger hintCalls) {
    return Fixtures.builder(clock)
        .indexPoolByEvent(indexed)
        .hint("fit", NODE_ADD, (job, o, n) -> {
          hintCalls.incrementAndGet();
          return job.priority() % 2 == 0 ? QueueingHint.QUEUE : QueueingHint.SKIP;
        })
        .hint("volume", VOLUME_ADD)
        .gate(Gate.of("quota", job -> !job.id().endsWith("7") || job.version() > 0, QUOTA))
        .build();
  }

  @Test
  void anEventVisitsOnlyTheItemsItCanConcern() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    SchedulingQueue<String, Job> q = queue(new FakeClock(), true, calls);
    for (int i = 0; i < 10; i++) {
      q.add(new Job("v" + (char) ('a' + i), 1));
    }
    q.add(new Job("f", 1));
    for (int i = 0; i < 10; i++) {
      q.requeueFailed(popNow(q), Rejectors.unschedulable("volume"));
    }
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    q.onEvent(NODE_ADD, null, null);
    assertEquals(1, calls.get()); // only "f" was asked; without the index, the same
    calls.set(0);
    SchedulingQueue<String, Job> plain = queue(new FakeClock(), false, calls);
    plain.add(new Job("f", 1));
    plain.requeueFailed(popNow(plain), Rejectors.unschedulable("fit"));
    plain.onEvent(NODE_ADD, null, null);
    assertEquals(1, calls.get());
  }

  @Test
  void withAndWithoutIndex_theQueueBehavesTheSame() throws Exception {
    List<String> withIndex = run(true);
    List<String> without = run(false);
    assertEquals(without, withIndex);
  }

  private List<String> run(boolean indexed) throws Exception {
    FakeClock clock = new FakeClock();
    SchedulingQueue<String, Job> q = queue(clock, indexed, new AtomicInteger());
    SplittableRandom random = new SplittableRandom(3);
    List<String> trace = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      q.add(new Job("j" + i, random.nextInt(4)));
    }
    for (int step = 0; step < 600; step++) {
      int op = random.nextInt(10);
      if (op < 4) {
        Optional<PoppedItem<String, Job>> p = q.pending().summary().startsWith("activeQ:0")
            ? Optional.empty() : q.pop();
        if (p.isPresent()) {
          int r = random.nextInt(3);
          q.requeueFailed(p.get(), r == 0 ? Rejectors.unschedulable("fit")
              : r == 1 ? Rejectors.pending("volume") : Rejectors.none());
        }
      } else if (op < 6) {
        q.onEvent(random.nextBoolean() ? NODE_ADD : VOLUME_ADD, null, step);
      } else if (op < 7) {
        q.onEvent(QUOTA, null, step);
      } else if (op < 8) {
        String id = "j" + random.nextInt(30);
        q.update(new Job(id, 0), new Job(id, random.nextInt(4), 1));
      } else {
        clock.step(Duration.ofMillis(700));
      }
      trace.add(q.pending().summary() + " " + q.pending().items());
    }
    return trace;
  }
}
