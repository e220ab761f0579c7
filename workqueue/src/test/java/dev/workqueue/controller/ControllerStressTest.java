package dev.workqueue.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many workers, few hot keys, random outcomes: a key is never reconciled twice at once. Run on
 * the default queue and on the priority queue (keys added at random priorities).
 */
class ControllerStressTest {
  private static final int KEYS = 8;

  @ParameterizedTest(name = "priorityQueue={0}")
  @ValueSource(booleans = {false, true})
  void hotKeys_areNeverReconciledByTwoWorkersAtOnce(boolean priorityQueue) throws Exception {
    int scale = Integer.parseInt(System.getProperty("stress.scale",
        System.getenv().getOrDefault("STRESS_SCALE", "1")));
    int adds = 20_000 * scale;
    AtomicIntegerArray busy = new AtomicIntegerArray(KEYS);
    AtomicLong reconciles = new AtomicLong();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    Controller<Integer> controller = Controller.<Integer>builder("stress")
        .workers(8)
        .rateLimiter(RateLimiters.exponential(Duration.ofNanos(1000), Duration.ofMillis(1)))
        .drainOnStop(true)
        .priorityQueue(priorityQueue)
        .reconciler(key -> {
          if (busy.getAndIncrement(key) != 0) {
            violations.add("key " + key + " reconciled by two workers at once");
          }
          try {
            reconciles.incrementAndGet();
            int roll = ThreadLocalRandom.current().nextInt(10);
            if (roll == 0) {
              throw new IllegalStateException("flaky");
            }
            if (roll == 1) {
              return Result.requeue();
            }
            if (roll == 2) {
              Thread.yield();
            }
            return roll == 3 ? Result.requeueAfter(Duration.ofNanos(500)) : Result.success();
          } finally {
            busy.decrementAndGet(key);
          }
        })
        .build();
    controller.start();
    Thread[] producers = new Thread[3];
    for (int p = 0; p < producers.length; p++) {
      producers[p] = new Thread(() -> {
        for (int i = 0; i < adds; i++) {
          int key = ThreadLocalRandom.current().nextInt(KEYS);
          if (priorityQueue) {
            controller.add(key, AddOptions.ofPriority(ThreadLocalRandom.current().nextInt(4)));
          } else {
            controller.add(key);
          }
          if ((i & 15) == 0) {
            Thread.yield();
          }
        }
      });
      producers[p].start();
    }
    for (Thread t : producers) {
      t.join();
    }
    StopResult<Integer> stopped = controller.stop(Duration.ofSeconds(60));
    System.out.printf("Controller stress (priorityQueue=" + priorityQueue + "): %d adds, %d reconciles, %d violations%n",
        3L * adds, reconciles.get(), violations.size());
    assertTrue(stopped.completed(), "stopped in time");
    assertEquals(List.of(), List.copyOf(violations));
    assertTrue(reconciles.get() >= KEYS, "work was done");
  }
}
