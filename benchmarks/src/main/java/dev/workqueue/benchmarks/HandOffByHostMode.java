package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * {@link HandOffBenchmark}'s hand-off, run so that contenders meet the host's cross-core modes
 * ({@link CrossCoreProbe}) alike: one-second windows of each contender in turn, each between two
 * 100 ms ping-pong probes taken while nothing else runs, so that a window's mode is known without
 * the workload's own traffic in the measurement. A window whose two probes agree counts as near
 * (both under {@value CrossCoreProbe#FAR_NANOS} ns a round trip) or far (both above); the others
 * are listed as mixed. Prints each window, then per contender and mode the median and range in M
 * items/s. Not JMH: it exists to check the in-run tags of {@link HostModeProfiler}.
 *
 * <p>Run: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.workqueue.benchmarks.HandOffByHostMode toolkit,naive 40 2} (contenders, rounds, producers
 * and consumers each).
 */
public final class HandOffByHostMode {
  private static final long WARM_UP_MILLIS = 300;
  private static final long WINDOW_MILLIS = 1000;
  private static final int PROBE_MILLIS = 100;

  private HandOffByHostMode() {}

  public static void main(String[] args) throws InterruptedException {
    String[] contenders = args.length > 0 ? args[0].split(",") : new String[] {"toolkit", "naive"};
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int each = args.length > 2 ? Integer.parseInt(args[2]) : 2;
    Map<String, List<double[]>> windows = new LinkedHashMap<>();
    for (int r = 0; r < rounds; r++) {
      for (String c : contenders) {
        double before = roundTrip(PROBE_MILLIS);
        double rate = window(c, each);
        double after = roundTrip(PROBE_MILLIS);
        windows.computeIfAbsent(c, k -> new ArrayList<>()).add(new double[] {before, rate, after});
        System.out.printf("%-8s probe %4.0f ns, %6.2f M/s, probe %4.0f ns%n", c, before,
            rate / 1e6, after);
      }
    }
    windows.forEach((c, ws) -> {
      for (String mode : new String[] {"near", "far", "mixed"}) {
        List<Double> rates = new ArrayList<>();
        for (double[] w : ws) {
          boolean near = w[0] < CrossCoreProbe.FAR_NANOS && w[2] < CrossCoreProbe.FAR_NANOS;
          boolean far = w[0] >= CrossCoreProbe.FAR_NANOS && w[2] >= CrossCoreProbe.FAR_NANOS;
          if (mode.equals(near ? "near" : far ? "far" : "mixed")) {
            rates.add(w[1] / 1e6);
          }
        }
        rates.sort(null);
        int m = rates.size();
        if (m > 0) {
          double median = (rates.get((m - 1) / 2) + rates.get(m / 2)) / 2;
          System.out.printf("%-8s %-5s %2d windows, median %.2f M/s [%.2f-%.2f]%n", c, mode, m,
              median, rates.get(0), rates.get(m - 1));
        }
      }
    });
  }

  /** The consumers' rate over one window, in items/s, with {@code n} producers and consumers. */
  private static double window(String contender, int n) throws InterruptedException {
    QueueUnderTest<Integer> q = Contender.create(contender);
    LongAdder added = new LongAdder();
    LongAdder done = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> producers = new ArrayList<>();
    List<Thread> consumers = new ArrayList<>();
    for (int p = 0; p < n; p++) {
      Integer[] ring = Keys.ring(1 << 16);
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
            if (item < 0) {
              return; // the end of the window (below)
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

  /** The mean round trip of a cache line between two spinning threads, over {@code millis}. */
  static double roundTrip(int millis) {
    AtomicLong ask = new AtomicLong();
    AtomicLong answer = new AtomicLong();
    Thread answering = new Thread(() -> {
      long v = 0;
      while (v >= 0) {
        while (ask.get() == v) {
          Thread.onSpinWait();
        }
        v = ask.get();
        answer.set(v);
      }
    });
    answering.setDaemon(true);
    answering.start();
    long v = 0;
    long trips = 0;
    long start = System.nanoTime();
    while (System.nanoTime() - start < millis * 1_000_000L) {
      for (int i = 0; i < 200; i++) {
        ask.set(++v);
        while (answer.get() != v) {
          Thread.onSpinWait();
        }
      }
      trips += 200;
    }
    double mean = (System.nanoTime() - start) / (double) trips;
    ask.set(-1);
    return mean;
  }
}
