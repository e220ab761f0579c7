package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link HandOffBenchmark}'s hand-off, run so that contenders meet the host's cross-core modes
 * ({@link CrossCoreProbe}) alike: one-second windows of each contender in turn, each between two
 * spells of {@value #QUIET_MILLIS} ms in which only the probe runs, so that a window's mode is
 * known without the workload's own traffic in the measurement. A window whose two spells saw
 * only near bursts counts as near, only far bursts as far; the others are listed as mixed.
 * Prints each window, then per contender and mode the median and range in M items/s. Not JMH:
 * it exists to check the in-run tags of {@link HostModeProfiler} and to see how each contender
 * fares in each mode. Its ratios between contenders are not JMH's: the contenders share one JVM,
 * so the queue interface's call sites see every contender and are compiled for all of them
 * (JMH gives each its own fork), which costs the toolkit more than the naive queue.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.workqueue.benchmarks.HandOffByHostMode toolkit,naive 40 2 spread} (contenders, rounds,
 * producers and consumers each, and the keys as {@link HandOffBenchmark}'s {@code keys} param:
 * {@code spread}, the default, or {@code sequential}).
 */
public final class HandOffByHostMode {
  private static final long WARM_UP_MILLIS = 300;
  private static final long WINDOW_MILLIS = 1000;
  /** A few of the probe's bursts ({@link CrossCoreProbe#PERIOD_MILLIS} apart). */
  private static final int QUIET_MILLIS = 350;

  private HandOffByHostMode() {}

  public static void main(String[] args) throws InterruptedException {
    String[] contenders = args.length > 0 ? args[0].split(",") : new String[] {"toolkit", "naive"};
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int each = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    boolean spread = args.length <= 3 || !args[3].equals("sequential");
    Map<String, Map<String, List<Double>>> rates = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (String c : contenders) {
        String before = quietMode();
        double rate = window(c, each, spread) / 1e6;
        String after = quietMode();
        String mode = before.equals(after) ? before : "mixed";
        rates.computeIfAbsent(c, k -> new LinkedHashMap<>())
            .computeIfAbsent(mode, k -> new ArrayList<>()).add(rate);
        System.out.printf("%-8s %-5s %6.2f M/s %s%n", c, before, rate, after);
      }
    }
    rates.forEach((c, byMode) -> {
      for (String mode : new String[] {"near", "far", "mixed"}) {
        List<Double> rs = byMode.getOrDefault(mode, List.of());
        List<Double> sorted = rs.stream().sorted().toList();
        int m = sorted.size();
        if (m > 0) {
          double median = (sorted.get((m - 1) / 2) + sorted.get(m / 2)) / 2;
          System.out.printf("%-8s %-5s %2d windows, median %.2f M/s [%.2f-%.2f]%n", c, mode, m,
              median, sorted.get(0), sorted.get(m - 1));
        }
      }
    });
  }

  /** The consumers' rate over one window, in items/s, with {@code n} producers and consumers. */
  private static double window(String contender, int n, boolean spread)
      throws InterruptedException {
    QueueUnderTest<Integer> q = Contender.create(contender);
    LongAdder added = new LongAdder();
    LongAdder done = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> producers = new ArrayList<>();
    List<Thread> consumers = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      Integer[] ring = spread ? Keys.spreadRing(1 << 16) : Keys.ring(1 << 16);
      producers.add(new Thread(() -> {
        int next = 0;
        try {
          while (!stop.get()) {
            if ((next & (HandOffBenchmark.CHECK_EVERY - 1)) == 0) {
              while (added.sum() - done.sum() >= HandOffBenchmark.MAX_IN_FLIGHT && !stop.get()) {
                LockSupport.parkNanos(HandOffBenchmark.FULL_SLEEP_NANOS);
              }
            }
            added.increment();
            q.add(ring[next++ & (ring.length - 1)]);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    for (int k = 0; k < n; k++) {
      consumers.add(new Thread(() -> {
        try {
          while (true) {
            Integer item = q.take();
            q.done(item);
            if (item < 0 && item >= -n && stop.get()) {
              return; // the end of the window (below); spread keys may be negative too
            }
            done.increment();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    producers.forEach(Thread::start);
    consumers.forEach(Thread::start);
    Thread.sleep(WARM_UP_MILLIS);
    long d0 = done.sum();
    long t0 = System.nanoTime();
    Thread.sleep(WINDOW_MILLIS);
    long d1 = done.sum();
    long t1 = System.nanoTime();
    stop.set(true);
    for (Thread t : producers) {
      t.join();
    }
    for (int k = 0; k < n; k++) {
      q.add(-1 - k); // one end marker per consumer, behind everything in flight
    }
    for (Thread t : consumers) {
      t.join();
    }
    q.close();
    return (d1 - d0) * 1e9 / (t1 - t0);
  }

  /**
   * The mode {@link CrossCoreProbe} sees over {@value #QUIET_MILLIS} ms while nothing else runs:
   * near or far if all its bursts were, else mixed.
   */
  private static String quietMode() throws InterruptedException {
    CrossCoreProbe probe = CrossCoreProbe.shared();
    probe.takeCounts();
    Thread.sleep(QUIET_MILLIS);
    long[] c = probe.takeCounts();
    return c[0] > 0 && c[1] == 0 ? "near" : c[1] > 0 && c[0] == 0 ? "far" : "mixed";
  }
}
