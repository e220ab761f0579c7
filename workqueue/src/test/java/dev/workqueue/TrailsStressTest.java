package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.testsupport.StressScale;
import dev.workqueue.trace.CarriedAdd;
import dev.workqueue.trace.HandOut;
import dev.workqueue.trace.QueueTracer;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A traced queue attributes each add to the right hand-out under concurrency ({@link Trails}):
 * producers add (and, where the kind delays, add after a delay) a few hot keys while consumers
 * take them, and each add's context is checked against what the threads saw in real time:
 *
 * <ul>
 *   <li><b>exactly once</b>: every add (none is cancelled, and the clock runs past every delay
 *       before the drain) is carried by exactly one hand-out of its key;
 *   <li><b>not too early</b>: an add made after its producer saw hand-out n of the key (each
 *       consumer counts its hand-out before its {@code done}) is carried by hand-out n + 1 or
 *       later: an add while the previous round is processing belongs to the next;
 *   <li><b>not too late</b>: an add without delay that returned before a consumer began the take
 *       that handed out hand-out n of the key is carried by hand-out n or earlier.
 * </ul>
 *
 * The producers work in phases; between two, the queue goes idle (every delayed add due and
 * handed out, nothing processing), and then every add so far must have been carried and the
 * trails must hold nothing: an add whose context missed the hand-out that covered it would sit
 * there with no round to come. Sizes scale with {@link StressScale}.
 */
class TrailsStressTest {
  private static final int KEYS = 6;
  private static final int PRODUCERS = 3;
  private static final int CONSUMERS = 2;
  private static final int PHASES = 40;

  private static final ThreadLocal<Long> nextContext = new ThreadLocal<>();
  private static final ThreadLocal<HandOut> lastHandOut = new ThreadLocal<>();

  /** What the threads saw of each add, indexed by its context. */
  private static final class Adds {
    final int[] key;
    final int[] seenHandOuts;
    final long[] ticket; // 0 for a delayed add
    final AtomicIntegerArray carriedBy;
    final BitSet made = new BitSet(); // synchronized on this

    Adds(int n) {
      key = new int[n];
      seenHandOuts = new int[n];
      ticket = new long[n];
      carriedBy = new AtomicIntegerArray(n);
    }
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void everyAdd_isCarriedByTheHandOutThatCoversIt(QueueKind kind) throws Exception {
    int ops = 20_000 * StressScale.factor();
    FakeClock clock = new FakeClock();
    WorkQueue<String> q = kind.build(WorkQueue.<String>builder().clock(clock).tracer(tracer()),
        QueueKind.FIRST_CHAR);
    Adds adds = new Adds(PRODUCERS * ops);
    AtomicInteger inFlight = new AtomicInteger();
    CyclicBarrier phase = new CyclicBarrier(PRODUCERS, () -> {
      clock.step(Duration.ofHours(1));
      Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
          .atMost(Duration.ofSeconds(30)).until(() -> holdsNoItem(q)
          && (!(q instanceof DelayingQueue<String> d) || d.waitingCount() == 0)
          && inFlight.get() == 0);
      checkIdle(q, adds);
    });
    AtomicInteger[] handOuts = new AtomicInteger[KEYS];
    Arrays.setAll(handOuts, i -> new AtomicInteger());
    AtomicLong tickets = new AtomicLong();
    ConcurrentLinkedQueue<long[]> takes = new ConcurrentLinkedQueue<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < CONSUMERS; c++) {
      threads.add(start(failure, () -> consume(q, handOuts, tickets, takes, adds, inFlight)));
    }
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < PRODUCERS; p++) {
      int id = p;
      producers.add(start(failure,
          () -> produce(kind, q, clock, id, ops, adds, handOuts, tickets, phase)));
    }
    for (Thread t : producers) {
      t.join();
    }
    clock.step(Duration.ofHours(1)); // every delayed add is due: the drain keeps them
    q.shutDownWithDrain();
    for (Thread t : threads) {
      t.join();
    }
    if (failure.get() != null) {
      fail(failure.get());
    }
    check(adds, takes);
    assertTrue(trailsOf(q).isEmpty(), "nothing left in the trails");
  }

  private static QueueTracer<String> tracer() {
    return new QueueTracer<>() {
      @Override
      public Object onAdd(String item, Duration delay) {
        return nextContext.get();
      }

      @Override
      public void onHandOut(String item, HandOut handOut) {
        lastHandOut.set(handOut);
      }

      @Override
      public int maxCarried() {
        return Integer.MAX_VALUE;
      }
    };
  }

  private static void produce(QueueKind kind, WorkQueue<String> q, FakeClock clock, int p,
      int ops, Adds adds, AtomicInteger[] handOuts, AtomicLong tickets, CyclicBarrier phase) {
    SplittableRandom random = new SplittableRandom(p);
    for (int i = 0; i < ops; i++) {
      if (i % (ops / PHASES) == 0 && i > 0) {
        await(phase);
      }
      int context = p * ops + i;
      int k = random.nextInt(KEYS);
      adds.key[context] = k;
      adds.seenHandOuts[context] = handOuts[k].get();
      nextContext.set((long) context);
      synchronized (adds) {
        adds.made.set(context);
      }
      if (kind.delays() && random.nextInt(4) == 0) {
        ((DelayingQueue<String>) q).addAfter(key(k), Duration.ofMillis(random.nextInt(3)));
      } else {
        q.add(key(k));
        adds.ticket[context] = tickets.incrementAndGet();
      }
      if (p == 0 && i % 64 == 0) {
        clock.stepMillis(1);
      }
    }
  }

  private static void consume(WorkQueue<String> q, AtomicInteger[] handOuts, AtomicLong tickets,
      ConcurrentLinkedQueue<long[]> takes, Adds adds, AtomicInteger inFlight) {
    while (true) {
      long before = tickets.get();
      Optional<String> next;
      try {
        next = q.get();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      if (next.isEmpty()) {
        return;
      }
      inFlight.incrementAndGet();
      int k = next.get().charAt(1) - '0';
      int n = handOuts[k].incrementAndGet();
      takes.add(new long[] {k, n, before});
      for (CarriedAdd c : lastHandOut.get().carried()) {
        int context = (int) (long) (Long) c.context();
        if (!adds.carriedBy.compareAndSet(context, 0, n)) {
          throw new AssertionError("add " + context + " carried twice");
        }
        if (adds.key[context] != k) {
          throw new AssertionError("add " + context + " carried by another key's hand-out");
        }
      }
      q.done(next.get());
      inFlight.decrementAndGet();
    }
  }

  private static void await(CyclicBarrier phase) {
    try {
      phase.await();
    } catch (InterruptedException | BrokenBarrierException e) {
      throw new AssertionError(e);
    }
  }

  /** With the queue idle: every add made so far was carried, and the trails hold nothing. */
  private static void checkIdle(WorkQueue<String> q, Adds adds) {
    BitSet made;
    synchronized (adds) {
      made = (BitSet) adds.made.clone();
    }
    for (int c = made.nextSetBit(0); c >= 0; c = made.nextSetBit(c + 1)) {
      if (adds.carriedBy.get(c) == 0) {
        throw new AssertionError("add " + c + " was carried by no hand-out, the queue is idle");
      }
    }
    try {
      if (!trailsOf(q).isEmpty()) {
        throw new AssertionError("the queue is idle but its trails hold contexts");
      }
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  private static String key(int k) {
    return "k" + k; // one fairness group: FIFO within it
  }

  private static void check(Adds adds, ConcurrentLinkedQueue<long[]> takes) {
    List<List<long[]>> byKey = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      byKey.add(new ArrayList<>());
    }
    takes.forEach(t -> byKey.get((int) t[0]).add(t));
    long[][] suffixMin = new long[KEYS][];
    for (int k = 0; k < KEYS; k++) {
      byKey.get(k).sort(Comparator.comparingLong(t -> t[2]));
      suffixMin[k] = new long[byKey.get(k).size() + 1];
      suffixMin[k][byKey.get(k).size()] = Long.MAX_VALUE;
      for (int i = byKey.get(k).size() - 1; i >= 0; i--) {
        suffixMin[k][i] = Math.min(suffixMin[k][i + 1], byKey.get(k).get(i)[1]);
      }
    }
    for (int c = 0; c < adds.key.length; c++) {
      int n = adds.carriedBy.get(c);
      assertTrue(n > 0, "add " + c + " was carried by no hand-out");
      assertTrue(n > adds.seenHandOuts[c], "add " + c + " made after hand-out "
          + adds.seenHandOuts[c] + " of its key was carried by hand-out " + n);
      if (adds.ticket[c] != 0) {
        int k = adds.key[c];
        int first = firstAtOrAfter(byKey.get(k), adds.ticket[c]);
        long bound = suffixMin[k][first];
        assertTrue(n <= bound, "add " + c + " returned before the take of hand-out " + bound
            + " began, but was carried by hand-out " + n);
      }
    }
  }

  /** The index of the first take (sorted by the ticket read before it) at or after {@code t}. */
  private static int firstAtOrAfter(List<long[]> sorted, long t) {
    int lo = 0;
    int hi = sorted.size();
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted.get(mid)[2] < t) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static Thread start(AtomicReference<Throwable> failure, Runnable body) {
    Thread t = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    });
    t.start();
    return t;
  }

  /**
   * Whether the queue's map is empty: nothing dirty, nothing processing. A consumer records what
   * it was handed before its {@code done}, and a hand-out leaves the entry in the map until then,
   * so a consumer between its take and its record keeps the queue from looking idle (its size,
   * 0 from the take on, would not).
   */
  private static boolean holdsNoItem(WorkQueue<?> q) throws ReflectiveOperationException {
    Field f = QueueEngine.class.getDeclaredField("entries");
    f.setAccessible(true);
    return ((ItemMap<?>) f.get(((DefaultWorkQueue<?>) q).engine)).isEmpty();
  }

  static Trails<?> trailsOf(WorkQueue<?> q) throws ReflectiveOperationException {
    Field f = QueueEngine.class.getDeclaredField("trails");
    f.setAccessible(true);
    return (Trails<?>) f.get(((DefaultWorkQueue<?>) q).engine);
  }
}
