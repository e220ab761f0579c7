package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkQueueStressTest} for the delaying queue on the real clock: producers mix
 * {@code add} with {@code addAfter} of 0-2 ms on a few hot keys while consumers take ({@code get},
 * or {@code poll} with a 1 ms timeout) and done them, and the shared timer pool promotes due
 * items meanwhile. The checker asserts:
 *
 * <ul>
 *   <li>never two consumers on one key at once;
 *   <li>every add or addAfter is followed by a processing that starts after it (on a global
 *       sequence, as in {@code WorkQueueStressTest}; the producers wait for the waiting room
 *       to empty before the drain, since shutdown discards waiting items);
 *   <li>no hand-out comes before its delay. Each add call makes at most one more round of
 *       processing (adds of a dirty key are merged, an addAfter of a waiting key keeps the
 *       earliest ready time, which is that of one of the calls merged), so by any instant
 *       {@code T} a key can have been handed out at most as many times as there were calls
 *       for it that were ready by {@code T}. Ready times are recorded before each call and
 *       hand-out times after each get, so the count is checked with the slack on the safe
 *       side, and exactly, after the run, from per-thread logs;
 *   <li>every thread exits after the drain, and so do the timer threads.
 * </ul>
 *
 * A later addAfter merged into an earlier pending one is processed at the earlier time, by
 * design (client-go's rule), so "after its delay" is the count above, not "a start after each
 * call's own ready time". Sizes scale with {@link StressScale#factor()}.
 */
class DelayingQueueStressTest {
  private static final int KEYS = 16;
  private static final int PRODUCERS = 3;
  private static final int CONSUMERS = 3;
  private static final long MAX_DELAY_NANOS = Duration.ofMillis(2).toNanos();

  /** One add or addAfter call, or one hand-out: key and a System.nanoTime() reading. */
  private record Event(int key, long nanos) {}

  @Test
  void producersMixingAddAndAddAfter_andConsumers_keepEveryPromise() throws Exception {
    Set<Thread> toolkitThreadsBefore = ThreadOwnershipTest.toolkitThreads();
    int opsPerProducer = 10_000 * StressScale.factor();
    DelayingQueue<Integer> q = DelayingQueue.create();
    AtomicLong sequence = new AtomicLong();
    AtomicLongArray lastAdd = new AtomicLongArray(KEYS);
    AtomicLongArray lastStart = new AtomicLongArray(KEYS);
    AtomicIntegerArray busy = new AtomicIntegerArray(KEYS);
    AtomicLong delayedAdds = new AtomicLong();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<List<Event>> readyLogs = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<List<Event>> handOutLogs = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);

    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      producers.add(new Thread(() -> {
        List<Event> readies = new ArrayList<>(opsPerProducer);
        readyLogs.add(readies);
        await(start);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < opsPerProducer; i++) {
          int key = random.nextInt(KEYS);
          boolean delayed = random.nextBoolean();
          long delay = delayed ? random.nextLong(MAX_DELAY_NANOS + 1) : 0;
          // Record before the call: the queue reads its clock later, so its ready time is
          // no earlier than this one, and any start that follows has a larger sequence.
          readies.add(new Event(key, System.nanoTime() + delay));
          lastAdd.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
          if (delayed) {
            q.addAfter(key, Duration.ofNanos(delay));
            delayedAdds.incrementAndGet();
          } else {
            q.add(key);
          }
          if ((i & 7) == 0) {
            Thread.yield();
          }
        }
      }, "stress-producer-" + p));
    }
    List<Thread> consumers = new ArrayList<>();
    for (int c = 0; c < CONSUMERS; c++) {
      boolean timed = c % 2 == 1; // some consumers use the timed wait, woken by adds or time
      consumers.add(new Thread(() -> {
        List<Event> handOuts = new ArrayList<>();
        handOutLogs.add(handOuts);
        await(start);
        try {
          while (true) {
            Optional<Integer> next = timed ? q.poll(Duration.ofMillis(1)) : q.get();
            if (next.isEmpty()) {
              if (!timed || q.isShuttingDown()) {
                return;
              }
              continue;
            }
            int key = next.get();
            handOuts.add(new Event(key, System.nanoTime()));
            if (busy.getAndIncrement(key) != 0) {
              violations.add("key " + key + " handed to two consumers at once");
            }
            lastStart.accumulateAndGet(key, sequence.incrementAndGet(), Math::max);
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
    producers.forEach(Thread::start);
    consumers.forEach(Thread::start);
    start.countDown();
    for (Thread t : producers) {
      t.join();
    }
    // Truly asynchronous: the timer pool promotes the last delayed items within ~2 ms.
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> q.waitingCount() == 0);
    assertTrue(q.shutDownWithDrain(Duration.ofSeconds(60)), "drain completed");
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
    long handOuts = checkNoHandOutBeforeItsDelay(readyLogs, handOutLogs, violations);

    System.out.printf("DelayingQueue stress: %d ops, %d hand-outs, %d violations%n",
        (long) PRODUCERS * opsPerProducer, handOuts, violations.size());
    assertEquals(List.of(), List.copyOf(violations));
    assertEquals(0, q.size());
    assertTrue(delayedAdds.get() > 0, "some adds were delayed");
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
      Set<Thread> started = new HashSet<>(ThreadOwnershipTest.toolkitThreads());
      started.removeAll(toolkitThreadsBefore);
      return started.isEmpty();
    });
  }

  /**
   * For each key: the i-th hand-out (in time order) must come when at least i calls for the
   * key were ready. Returns the number of hand-outs.
   */
  private static long checkNoHandOutBeforeItsDelay(
      ConcurrentLinkedQueue<List<Event>> readyLogs,
      ConcurrentLinkedQueue<List<Event>> handOutLogs,
      ConcurrentLinkedQueue<String> violations) {
    // No call started before the earliest ready time less the longest delay, and every
    // hand-out follows a call: every reading is at or after base.
    long base = earliest(readyLogs) - MAX_DELAY_NANOS;
    long[][] readies = byKey(readyLogs, base);
    long[][] handOuts = byKey(handOutLogs, base);
    long total = 0;
    for (int k = 0; k < KEYS; k++) {
      long[] ready = readies[k];
      long[] out = handOuts[k];
      total += out.length;
      int readyCount = 0;
      for (int i = 0; i < out.length; i++) {
        while (readyCount < ready.length && ready[readyCount] - out[i] <= 0) {
          readyCount++;
        }
        if (readyCount < i + 1) {
          violations.add("key " + k + ": hand-out #" + (i + 1) + " came when only "
              + readyCount + " add calls for it were ready (before its delay)");
          break;
        }
      }
    }
    return total;
  }

  /** The earliest reading in {@code logs} (which must not be empty). */
  private static long earliest(ConcurrentLinkedQueue<List<Event>> logs) {
    Long first = null;
    for (List<Event> log : logs) {
      for (Event e : log) {
        if (first == null || e.nanos() - first < 0) {
          first = e.nanos();
        }
      }
    }
    return first;
  }

  /**
   * Per key, the event times as offsets from {@code base}, sorted: the readings are
   * System.nanoTime() values, comparable only by difference, and the offsets are small.
   */
  private static long[][] byKey(ConcurrentLinkedQueue<List<Event>> logs, long base) {
    int[] counts = new int[KEYS];
    logs.forEach(log -> log.forEach(e -> counts[e.key()]++));
    long[][] out = new long[KEYS][];
    for (int k = 0; k < KEYS; k++) {
      out[k] = new long[counts[k]];
    }
    int[] fill = new int[KEYS];
    for (List<Event> log : logs) {
      for (Event e : log) {
        out[e.key()][fill[e.key()]++] = e.nanos() - base;
      }
    }
    for (long[] times : out) {
      Arrays.sort(times);
    }
    return out;
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
