package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import dev.workqueue.testing.RecordingSchedulingMetricsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Workers pop, finish or fail items while other threads update items, send events and move
 * the clock. A bounded number of operations; checks that no item is handed to two workers at
 * once, none is lost, nothing deadlocks, and the gauges agree with the state at the end.
 */
@Timeout(60)
class SchedulingQueueConcurrencyTest {
  private static final int KEYS = 50;
  private static final int WORKERS = 4;
  private static final int POPS = 5_000;
  private static final int EVENTS = 3_000;

  @Test
  void popDoneRequeue_againstUpdatesAndEvents_loseNothing() throws Exception {
    FakeClock clock = new FakeClock();
    RecordingSchedulingMetricsProvider m = new RecordingSchedulingMetricsProvider();
    SchedulingQueue<String, Job> q = Fixtures.builder(clock).name("q").metricsProvider(m)
        .hint("fit", NODE_ADD, (job, o, n) -> job.version() % 2 == 0
            ? QueueingHint.QUEUE : QueueingHint.SKIP)
        .hint("bind", NODE_ADD)
        .maxInFlightEvents(64)
        .build();
    for (int i = 0; i < KEYS; i++) {
      q.add(new Job("k" + i, i % 5));
    }
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    Set<String> completed = ConcurrentHashMap.newKeySet();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    AtomicInteger pops = new AtomicInteger();
    AtomicBoolean finishing = new AtomicBoolean();
    AtomicBoolean stopClock = new AtomicBoolean();

    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      SplittableRandom random = new SplittableRandom(w);
      workers.add(start(failures, () -> {
        while (true) {
          Optional<PoppedItem<String, Job>> next = q.pop();
          if (next.isEmpty()) {
            return;
          }
          PoppedItem<String, Job> p = next.get();
          assertTrue(inFlight.add(p.key()), p.key() + " handed to two workers at once");
          int choice = random.nextInt(4);
          boolean finish = finishing.get() || choice == 0;
          pops.incrementAndGet();
          inFlight.remove(p.key());
          if (finish) {
            q.done(p.id());
            if (finishing.get()) {
              completed.add(p.key());
            } else {
              q.add(new Job(p.key(), random.nextInt(5))); // the next round of the same key
            }
          } else if (choice == 1) {
            q.requeueFailed(p, Rejectors.none());
          } else if (choice == 2) {
            q.requeueFailed(p, Rejectors.unschedulable("fit"));
          } else {
            q.requeueFailed(p, Rejectors.pending("bind"));
          }
        }
      }));
    }
    Thread events = start(failures, () -> {
      SplittableRandom random = new SplittableRandom(99);
      for (int i = 0; i < EVENTS; i++) {
        String key = "k" + random.nextInt(KEYS);
        if (random.nextBoolean()) {
          q.onEvent(NODE_ADD, null, i);
        } else {
          q.update(new Job(key, 0), new Job(key, random.nextInt(5), i));
        }
      }
    });
    Thread ticker = start(failures, () -> {
      while (!stopClock.get()) {
        clock.step(Duration.ofMillis(250));
        Thread.onSpinWait();
      }
    });

    events.join();
    await().atMost(Duration.ofSeconds(30)).until(() -> pops.get() > POPS || !failures.isEmpty());
    finishing.set(true);
    List<Job> all = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      all.add(new Job("k" + i, 0));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      q.activate(all); // pool and backoffQ to activeQ; workers now finish everything
      return q.pending().items().isEmpty() && inFlight.isEmpty() || !failures.isEmpty();
    });
    stopClock.set(true);
    ticker.join();
    assertEquals(List.of(), failures);

    Set<String> expected = new HashSet<>();
    all.forEach(j -> expected.add(j.id()));
    assertEquals(expected, new HashSet<>(completed), "every item finished exactly as added");
    assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary());
    assertEquals(0.0, m.pending("q", "active"));
    assertEquals(0.0, m.pending("q", "backoff"));
    assertEquals(0.0, m.pending("q", "unschedulable"));
    assertEquals(0.0, m.rejectedBy("q", "fit"));
    assertEquals(0.0, m.rejectedBy("q", "bind"));

    q.close();
    for (Thread t : workers) {
      t.join();
    }
    assertEquals(List.of(), failures);
    assertEquals(0, clock.pendingWakeups());
  }

  interface Body {
    void run() throws Exception;
  }

  private static Thread start(List<Throwable> failures, Body body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failures.add(e);
      }
    });
    t.setDaemon(true);
    t.start();
    return t;
  }
}
