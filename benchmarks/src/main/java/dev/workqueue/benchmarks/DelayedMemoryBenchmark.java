package dev.workqueue.benchmarks;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.benchmarks.DelayingContender.DelayingQueueUnderTest;
import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jol.info.GraphLayout;
import org.openjdk.jol.vm.VM;

/**
 * Memory per pending delayed item, keys excluded (PERF.md): with JOL, the retained size of a
 * queue holding {@value #N} items due 1–2 hours from now, minus the same queue empty, minus the
 * keys' own objects ({@code Integer}s), divided by {@value #N}. Whatever the queue allocates
 * per item counts: the toolkit's heap and index arrays, the {@code DelayQueue}'s array and its
 * per-item {@code Delayed} wrapper ({@link DelayedItem}), the peer's {@code DelayQueue},
 * wrapper and {@code ConcurrentHashMap}. Array slack counts too: it is memory the queue holds.
 *
 * <p><b>The figure is the secondary result {@code bytesPerItem}</b> (the same every iteration;
 * the primary score is only the time the measurement took). The toolkit queue runs on a clock
 * whose wake-ups never fire, so that JOL walks the queue and not the shared timer pool's
 * threads (nothing here is ever due); the peer's thread is not reachable from its queue.
 *
 * <p>Run: {@code benchmarks/run.sh quick DelayedMemoryBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-Djol.magicFieldOffset=true"})
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@State(Scope.Thread)
public class DelayedMemoryBenchmark {
  static final int N = 100_000;
  private static final long HOUR = TimeUnit.HOURS.toNanos(1);

  @Param({"toolkit", "delayqueue", "peer"})
  public String queue;

  /** The result, as a JMH secondary result. */
  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Bytes {
    public double bytesPerItem = Double.NaN;
  }

  @Benchmark
  public Object measure(Bytes out) {
    DelayingQueueUnderTest q = create(queue);
    try {
      long empty = GraphLayout.parseInstance(q.unwrap()).totalSize();
      Integer[] keys = java.util.Arrays.copyOf(Keys.ring(1 << 17), N);
      SplittableRandom random = new SplittableRandom(3);
      for (Integer k : keys) {
        long d = HOUR + random.nextLong(HOUR);
        q.addAfter(k, Duration.ofNanos(d), d);
      }
      if (q instanceof DelayingContender.Peer) {
        ((DelayingContender.Peer) q).awaitBufferDrained();
        java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L); // its thread may still be inserting the last item it took
      }
      long full = GraphLayout.parseInstance(q.unwrap()).totalSize();
      long keyBytes = GraphLayout.parseInstance((Object) keys).totalSize() - VM.current().sizeOf(keys);
      out.bytesPerItem = (double) (full - empty - keyBytes) / N;
      return q;
    } finally {
      q.close();
    }
  }

  private static DelayingQueueUnderTest create(String queue) {
    if ("toolkit".equals(queue)) {
      DelayingQueue<Integer> q = WorkQueue.<Integer>builder().clock(new IdleClock()).buildDelaying();
      return new DelayingContender.Toolkit(q);
    }
    return DelayingContender.create(queue);
  }

  /** The system time, with wake-ups that never fire (nothing in this benchmark is due). */
  private static final class IdleClock implements Clock {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public long awaitUntil(Lock lock, Condition condition, long deadlineNanos)
        throws InterruptedException {
      long remaining = deadlineNanos - System.nanoTime();
      return remaining <= 0 ? remaining : condition.awaitNanos(remaining);
    }

    @Override
    public Cancellable schedule(long deadlineNanos, Runnable task) {
      return () -> true;
    }
  }
}
