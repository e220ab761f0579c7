package dev.workqueue.benchmarks;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@link HandOffBenchmark}'s hand-off on a busy host: {@value #BUSY_THREADS} more threads of
 * other work keep both cores busy the whole trial, as the other pods of a shared node do. A
 * queue whose threads spin, or that needs both cores at once to hand an item over, loses here;
 * one whose threads block and wake cheaply keeps its rate. The figure is the consumers' rate, as
 * in {@link HandOffBenchmark}; the bar (PERF.md) is 2P+2C at least 1.0x the naive queue.
 *
 * <p>The other work is plain arithmetic on each thread's own state: it allocates nothing and
 * shares no cache line with the queue, so it takes processor time and nothing else.
 *
 * <p>Run: {@code benchmarks/run.sh interleaved 3 toolkit,naive,lbq 'BusyHostHandOffBenchmark.p2c2'
 * -p keys=spread}.
 */
public class BusyHostHandOffBenchmark extends HandOffBenchmark {
  /** Threads of other work, beside the benchmark's own. */
  static final int BUSY_THREADS = 4;

  private final List<Thread> busy = new ArrayList<>();
  private volatile boolean stop;

  @Setup(Level.Trial)
  public void startOtherWork() {
    stop = false;
    for (int i = 0; i < BUSY_THREADS; i++) {
      Thread t = new Thread(this::work, "other-work-" + i);
      t.setDaemon(true);
      busy.add(t);
      t.start();
    }
  }

  @TearDown(Level.Trial)
  public void stopOtherWork() throws InterruptedException {
    stop = true;
    for (Thread t : busy) {
      t.join();
    }
    busy.clear();
  }

  private void work() {
    long x = Thread.currentThread().getId() | 1;
    while (!stop) {
      for (int i = 0; i < 10_000; i++) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
      }
    }
    if (x == 42) {
      System.out.print(""); // keeps the loop from being optimised away
    }
  }
}
