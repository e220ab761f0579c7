package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Many producers add a few hot keys with random options (priority, delay, rate limit, plain
 * add, addAfter, reschedule) while many consumers get and done them and a stepper thread moves
 * the fake clock, so delayed items come due all along. The checker asserts:
 *
 * <ul>
 *   <li>never two consumers on one key at once;
 *   <li>no depth gauge (the total and each priority's) is ever set below zero;
 *   <li>every add is followed by a processing that starts after it (on a global sequence:
 *       after the producers stop, the clock passes every delay and the queue drains);
 *   <li>the queue's structures agree with each other whenever the stepper looks, and it is
 *       empty at the end; every thread exits.
 * </ul>
 *
 * Scaled by {@link StressScale}; a few seconds at the default scale.
 */
class PriorityWorkQueueStressTest {
  private static final int KEYS = 24;
  private static final int PRODUCERS = 4;
  private static final int CONSUMERS = 4;

  /** Records like {@link RecordingMetricsProvider}, and reports any gauge set below zero. */
  private static final class CheckingProvider implements MetricsProvider {
    final RecordingMetricsProvider recorded = new RecordingMetricsProvider();
    final ConcurrentLinkedQueue<String> violations;

    CheckingProvider(ConcurrentLinkedQueue<String> violations) {
      this.violations = violations;
    }

    private Gauge checked(String what, Gauge g) {
      return v -> {
        if (v < 0) {
          violations.add(what + " set to " + v);
        }
        g.set(v);
      };
    }

    @Override
    public Gauge newDepthMetric(String name) {
      return checked("depth", recorded.newDepthMetric(name));
    }

    @Override
    public Gauge newDepthWithPriorityMetric(String name, String priority) {
      return checked("depth{priority=" + priority + "}",
          recorded.newDepthWithPriorityMetric(name, priority));
    }

    @Override
    public Counter newAddsMetric(String name) {
      return recorded.newAddsMetric(name);
    }

    @Override
    public Histogram newLatencyMetric(String name) {
      return recorded.newLatencyMetric(name);
    }

    @Override
    public Histogram newWorkDurationMetric(String name) {
      return recorded.newWorkDurationMetric(name);
    }

    @Override
    public Gauge newUnfinishedWorkSecondsMetric(String name) {
      return checked("unfinished", recorded.newUnfinishedWorkSecondsMetric(name));
    }

    @Override
    public Gauge newLongestRunningProcessorSecondsMetric(String name) {
      return checked("longest", recorded.newLongestRunningProcessorSecondsMetric(name));
    }

    @Override
    public Counter newRetriesMetric(String name) {
      return recorded.newRetriesMetric(name);
    }
  }

  @Test
  void randomOptions_manyProducersAndConsumers_keepEveryPromise() {
    assertTimeoutPreemptively(Duration.ofMinutes(5), this::run);
  }

  private void run() throws Exception {
    int addsPerProducer = 20_000 * StressScale.factor();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    CheckingProvider metrics = new CheckingProvider(violations);
    FakeClock clock = new FakeClock();
    DefaultPriorityWorkQueue<Integer> q = (DefaultPriorityWorkQueue<Integer>) WorkQueue
        .<Integer>builder().name("stress").metricsProvider(metrics).clock(clock)
        .agingThreshold(Duration.ofMillis(20))
        .buildPriority(RateLimiters.exponential(Duration.ofMillis(1), Duration.ofMillis(30)));
    AtomicLong sequence = new AtomicLong();
    AtomicLongArray lastAdd = new AtomicLongArray(KEYS);
    AtomicLongArray lastStart = new AtomicLongArray(KEYS);
    AtomicIntegerArray busy = new AtomicIntegerArray(KEYS);
    AtomicLong handOuts = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch producersDone = new CountDownLatch(PRODUCERS);

    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      producers.add(new Thread(() -> {
        await(start);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < addsPerProducer; i++) {
          int key = random.nextInt(KEYS);
          // Record before adding: a processing start that follows has a larger sequence.
          lastAdd.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
          switch (random.nextInt(6)) {
            case 0 -> q.add(key);
            case 1 -> q.addAfter(key, Duration.ofMillis(random.nextInt(-5, 20)));
            case 2 -> q.addRateLimited(key);
            case 3 -> q.reschedule(key, Duration.ofMillis(random.nextInt(0, 20)));
            default -> q.add(key, AddOptions.ofPriority(random.nextInt(-3, 4))
                .withAfter(Duration.ofMillis(random.nextInt(3) == 0 ? random.nextInt(20) : 0))
                .withRateLimited(random.nextInt(4) == 0));
          }
          if ((i & 7) == 0) {
            Thread.yield();
          }
        }
        producersDone.countDown();
      }, "pq-stress-producer-" + p));
    }
    List<Thread> consumers = new ArrayList<>();
    for (int c = 0; c < CONSUMERS; c++) {
      consumers.add(new Thread(() -> {
        await(start);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        try {
          while (true) {
            Optional<PriorityItem<Integer>> next =
                random.nextBoolean() ? q.getWithPriority() : q.get().map(k -> new PriorityItem<>(k, 0));
            if (next.isEmpty()) {
              return;
            }
            int key = next.get().item();
            if (busy.getAndIncrement(key) != 0) {
              violations.add("key " + key + " handed to two consumers at once");
            }
            lastStart.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
            handOuts.incrementAndGet();
            if (random.nextInt(8) == 0) {
              Thread.yield(); // let re-adds land while processing
            }
            if (random.nextInt(3) == 0) {
              q.forget(key);
            }
            busy.decrementAndGet(key);
            q.done(key);
          }
        } catch (InterruptedException e) {
          violations.add("consumer interrupted");
        }
      }, "pq-stress-consumer-" + c));
    }
    Thread stepper = new Thread(() -> {
      await(start);
      int steps = 0;
      while (producersDone.getCount() > 0) {
        clock.stepMillis(1);
        if (++steps % 64 == 0 && !q.checkInvariants()) {
          violations.add("internal structures disagree after step " + steps);
        }
        Thread.yield();
      }
    }, "pq-stress-stepper");

    producers.forEach(Thread::start);
    consumers.forEach(Thread::start);
    stepper.start();
    start.countDown();
    for (Thread t : producers) {
      t.join();
    }
    stepper.join();
    clock.step(Duration.ofHours(1)); // every delay ends: all pending adds become ready
    assertEquals(0, q.waitingCount());
    q.shutDownWithDrain();
    for (Thread t : consumers) {
      t.join(10_000);
      assertFalse(t.isAlive(), t.getName() + " exited after the drain");
    }
    for (int k = 0; k < KEYS; k++) {
      if (lastAdd.get(k) != 0 && lastStart.get(k) < lastAdd.get(k)) {
        violations.add("key " + k + ": last add " + lastAdd.get(k)
            + " was never followed by a processing (last start " + lastStart.get(k) + ")");
      }
    }
    assertTrue(q.checkInvariants());
    System.out.printf("PriorityWorkQueue stress: %d adds, %d hand-outs, %d violations%n",
        (long) PRODUCERS * addsPerProducer, handOuts.get(), violations.size());
    assertEquals(List.of(), List.copyOf(violations));
    assertEquals(0, q.size());
    assertEquals(0.0, metrics.recorded.value("stress", MetricsProvider.DEPTH));
    for (int p = -3; p < 4; p++) {
      assertEquals(0.0, metrics.recorded.value("stress",
          RecordingMetricsProvider.depthWithPriority(Integer.toString(p))), "priority " + p);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
