package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * Many producers re-add a few hot keys while many consumers get and done them. The checker
 * asserts the queue's promises:
 *
 * <ul>
 *   <li>never two consumers on one key at once;
 *   <li>every add is followed by a processing that starts after it (checked on a global
 *       sequence: the last processing start of each key is later than its last add);
 *   <li>every thread exits after the drain.
 * </ul>
 */
class WorkQueueStressTest {
  private static final int KEYS = 16;
  private static final int PRODUCERS = 4;
  private static final int CONSUMERS = 4;

  @Test
  void manyProducersAndConsumers_keepEveryPromise() throws Exception {
    int addsPerProducer = 20_000 * StressScale.factor();
    WorkQueue<Integer> q = WorkQueue.create();
    AtomicLong sequence = new AtomicLong();
    AtomicLongArray lastAdd = new AtomicLongArray(KEYS);
    AtomicLongArray lastStart = new AtomicLongArray(KEYS);
    AtomicIntegerArray busy = new AtomicIntegerArray(KEYS);
    AtomicLong handOuts = new AtomicLong();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();

    for (int p = 0; p < PRODUCERS; p++) {
      threads.add(new Thread(() -> {
        await(start);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < addsPerProducer; i++) {
          int key = random.nextInt(KEYS);
          // Record before adding: a processing start that follows has a larger sequence.
          lastAdd.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
          q.add(key);
          if ((i & 7) == 0) {
            Thread.yield(); // give consumers a chance, so adds also land on processing keys
          }
        }
      }, "stress-producer-" + p));
    }
    List<Thread> consumers = new ArrayList<>();
    for (int c = 0; c < CONSUMERS; c++) {
      consumers.add(new Thread(() -> {
        await(start);
        try {
          while (true) {
            Optional<Integer> next = q.get();
            if (next.isEmpty()) {
              return;
            }
            int key = next.get();
            if (busy.getAndIncrement(key) != 0) {
              violations.add("key " + key + " handed to two consumers at once");
            }
            lastStart.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
            handOuts.incrementAndGet();
            if (ThreadLocalRandom.current().nextInt(8) == 0) {
              Thread.yield(); // let re-adds land while processing
            }
            busy.decrementAndGet(key);
            q.done(key);
          }
        } catch (InterruptedException e) {
          violations.add("consumer interrupted");
        }
      }, "stress-consumer-" + c));
    }
    threads.forEach(Thread::start);
    consumers.forEach(Thread::start);
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(q.shutDownWithDrain(java.time.Duration.ofSeconds(60)), "drain completed");
    for (Thread t : consumers) {
      t.join(10_000);
      assertTrue(!t.isAlive(), t.getName() + " exited after shutdown");
    }
    for (int k = 0; k < KEYS; k++) {
      if (lastAdd.get(k) != 0 && lastStart.get(k) < lastAdd.get(k)) {
        violations.add("key " + k + ": last add " + lastAdd.get(k)
            + " was never followed by a processing (last start " + lastStart.get(k) + ")");
      }
    }
    System.out.printf("WorkQueue stress: %d adds, %d hand-outs, %d violations%n",
        (long) PRODUCERS * addsPerProducer, handOuts.get(), violations.size());
    assertEquals(List.of(), List.copyOf(violations));
    assertEquals(0, q.size());
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
