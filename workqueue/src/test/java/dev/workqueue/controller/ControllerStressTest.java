package dev.workqueue.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.InvariantChecker;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Many workers, few hot keys, random outcomes (success, exception, requeue, requeueAfter):
 * the shared invariant checker asserts that a key is never reconciled by two workers at once
 * and that every add is followed by a reconcile that starts after it (the stop drains the
 * queue). The ready-time check does not apply: the controller makes its own delayed adds.
 * Run on the default queue and on the priority queue (keys added at random priorities). Sizes
 * scale with {@link StressScale}.
 */
class ControllerStressTest {
  private static final int KEYS = 8;

  @ParameterizedTest(name = "priorityQueue={0}")
  @ValueSource(booleans = {false, true})
  void hotKeys_areNeverReconciledByTwoWorkersAtOnce_andNoAddIsLost(boolean priorityQueue)
      throws Exception {
    int adds = 20_000 * StressScale.factor();
    InvariantChecker checker = new InvariantChecker(KEYS, System::nanoTime);
    Controller<Integer> controller = Controller.<Integer>builder("stress")
        .workers(8)
        .rateLimiter(RateLimiters.exponential(Duration.ofNanos(1000), Duration.ofMillis(1)))
        .drainOnStop(true)
        .priorityQueue(priorityQueue)
        .reconciler(key -> {
          checker.handedOut(key);
          try {
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
            checker.finishing(key);
          }
        })
        .build();
    controller.start();
    Thread[] producers = new Thread[3];
    for (int p = 0; p < producers.length; p++) {
      SplittableRandom random = new SplittableRandom(p);
      producers[p] = new Thread(() -> {
        for (int i = 0; i < adds; i++) {
          int key = random.nextInt(KEYS);
          checker.beforeAdd(key);
          if (priorityQueue) {
            controller.add(key, AddOptions.ofPriority(random.nextInt(4)));
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
    // Every add made a key dirty or found it dirty: the drain reconciles it. (Retries still
    // waiting out their back-off are discarded by the stop, by design; they are not adds.)
    StopResult<Integer> stopped = controller.stop(Duration.ofSeconds(60));
    assertTrue(stopped.completed(), "stopped in time");
    assertEquals(List.of(), stopped.stillRunning());
    checker.verify(priorityQueue ? "Controller (priority queue)" : "Controller", false);
    assertTrue(checker.handOuts() >= KEYS, "work was done");
  }
}
