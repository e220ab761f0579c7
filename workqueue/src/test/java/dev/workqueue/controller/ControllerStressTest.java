package dev.workqueue.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Many workers, few hot keys, random outcomes: a key is never reconciled twice at once. */
class ControllerStressTest {
  private static final int KEYS = 8;

  @Test
  void hotKeys_areNeverReconciledByTwoWorkersAtOnce() throws Exception {
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
          controller.add(ThreadLocalRandom.current().nextInt(KEYS));
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
    System.out.printf("Controller stress: %d adds, %d reconciles, %d violations%n",
        3L * adds, reconciles.get(), violations.size());
    assertTrue(stopped.completed(), "stopped in time");
    assertEquals(List.of(), List.copyOf(violations));
    assertTrue(reconciles.get() >= KEYS, "work was done");
  }
}
