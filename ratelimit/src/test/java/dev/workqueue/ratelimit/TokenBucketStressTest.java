package dev.workqueue.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Token buckets under concurrent callers while another thread moves the clock: the rate they
 * promise holds. Each call's token is granted at {@code r + wait}, where {@code r} is the clock
 * reading the limiter itself took (recorded by a wrapping clock). Over any span of grants,
 * {@code k} grants need at least {@code (k - burst)} intervals between the first and the last:
 * no more than {@code burst} at once, then one per interval. No wait is negative. And the bucket
 * does not hold back tokens it has: the run is cut into phases, between which (all callers
 * paused) the clock moves far enough for every bucket to refill, so the first {@code burst}
 * calls of each bucket in each phase must be let through at once.
 *
 * <p>{@code TokenBucketLincheckTest} checks the exact waits with time frozen; this test checks
 * the promise with time moving. Sizes scale with {@link StressScale}.
 */
class TokenBucketStressTest {
  private static final int THREADS = 4;
  private static final double QPS = 1_000; // one token per millisecond
  private static final long INTERVAL = 1_000_000;
  private static final int BURST = 5;
  private static final int PHASES = 20;

  /** A grant: the item, and the reading at which its token exists. */
  private record Grant(int item, long at, long reading) {}

  @Test
  void sharedBucket_neverGrantsFasterThanItsRate_whileTimeMoves() throws Exception {
    List<Grant> grants = run(clock -> RateLimiters.tokenBucket(QPS, BURST, clock), 1);
    check(grants, "tokenBucket");
  }

  @Test
  void perItemBuckets_eachNeverGrantsFasterThanItsRate_whileTimeMoves() throws Exception {
    int items = 3;
    List<Grant> grants =
        run(clock -> RateLimiters.perItemTokenBucket(QPS, BURST, clock), items);
    for (int item = 0; item < items; item++) {
      int key = item;
      check(grants.stream().filter(g -> g.item() == key).toList(), "perItemTokenBucket " + key);
    }
  }

  private static List<Grant> run(Function<Clock, RateLimiter<Integer>> factory, int items)
      throws InterruptedException {
    int callsPerPhase = 2_500 * StressScale.factor();
    int callsPerThread = PHASES * callsPerPhase;
    FakeClock fake = new FakeClock(Long.MAX_VALUE - 10 * INTERVAL); // readings wrap
    ThreadLocal<long[]> lastReading = ThreadLocal.withInitial(() -> new long[1]);
    Clock recording = new Clock() {
      @Override
      public long nanoTime() {
        long now = fake.nanoTime();
        lastReading.get()[0] = now;
        return now;
      }

      @Override
      public long awaitUntil(Lock lock, Condition condition, long deadline)
          throws InterruptedException {
        return fake.awaitUntil(lock, condition, deadline);
      }

      @Override
      public Cancellable schedule(long deadline, Runnable task) {
        return fake.schedule(deadline, task);
      }
    };
    RateLimiter<Integer> limiter = factory.apply(recording);
    ConcurrentLinkedQueue<List<Grant>> logs = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicBoolean callersDone = new AtomicBoolean();
    // Between phases: past all debt, and a full window more, so every bucket is full again.
    Duration refill = Duration.ofNanos((THREADS * callsPerPhase + BURST) * INTERVAL);
    CyclicBarrier phaseEnd = new CyclicBarrier(THREADS, () -> fake.step(refill));
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int seed = t;
      callers.add(new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        List<Grant> log = new ArrayList<>(callsPerThread);
        logs.add(log);
        long[] reading = lastReading.get();
        try {
          for (int phase = 0; phase < PHASES; phase++) {
            for (int i = 0; i < callsPerPhase; i++) {
              int item = random.nextInt(items);
              long wait = limiter.when(item).toNanos();
              log.add(new Grant(item, reading[0] + wait, reading[0]));
              if (wait < 0) {
                throw new AssertionError("negative wait " + wait);
              }
            }
            phaseEnd.await();
          }
        } catch (Throwable e) {
          failures.add(e);
          phaseEnd.reset(); // the other callers must not wait for this one at the barrier
        }
      }, "bucket-caller-" + t));
    }
    Thread stepper = new Thread(() -> {
      SplittableRandom random = new SplittableRandom(42);
      while (!callersDone.get()) {
        // Steps shorter than the rate the callers take tokens at: the buckets stay in debt.
        fake.step(Duration.ofNanos(random.nextLong(INTERVAL / 2)));
        Thread.yield();
      }
    }, "bucket-stepper");
    stepper.setDaemon(true);
    callers.forEach(Thread::start);
    stepper.start();
    for (Thread t : callers) {
      t.join();
    }
    callersDone.set(true);
    stepper.join();
    assertEquals(List.of(), List.copyOf(failures));
    List<Grant> all = new ArrayList<>();
    logs.forEach(all::addAll);
    assertEquals((long) THREADS * callsPerThread, all.size());
    return all;
  }

  /**
   * The grants of one bucket keep its rate: sorted by time (as offsets from the earliest, since
   * readings wrap), grant {@code j} comes at least {@code (j - i + 1 - BURST)} intervals after
   * grant {@code i}. With {@code h(j) = at(j) - j * INTERVAL} that is
   * {@code h(j) >= max(h(i), i < j) - (BURST - 1) * INTERVAL}, checked in one pass.
   */
  private static void check(List<Grant> grants, String what) {
    long base = grants.stream().mapToLong(Grant::reading).reduce((a, b) -> a - b < 0 ? a : b)
        .orElseThrow();
    long[] at = grants.stream().mapToLong(g -> g.at() - base).toArray();
    Arrays.sort(at);
    long maxH = Long.MIN_VALUE;
    List<String> violations = new ArrayList<>();
    for (int j = 0; j < at.length; j++) {
      long h = at[j] - j * INTERVAL;
      if (maxH != Long.MIN_VALUE && h < maxH - (BURST - 1) * INTERVAL && violations.size() < 5) {
        violations.add("grant " + j + " at " + at[j] + " ns comes too soon after earlier ones");
      }
      maxH = Math.max(maxH, h);
    }
    long immediate = grants.stream().filter(g -> g.at() == g.reading()).count();
    System.out.printf("%s stress: operations %d, immediate %d, violations %d%n",
        what, grants.size(), immediate, violations.size());
    assertEquals(List.of(), violations);
    assertTrue(immediate >= (long) BURST * PHASES,
        what + ": only " + immediate + " calls went through at once; each phase starts full");
  }
}
