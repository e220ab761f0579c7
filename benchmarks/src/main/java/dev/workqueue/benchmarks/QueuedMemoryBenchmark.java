package dev.workqueue.benchmarks;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * Memory per queued key, keys excluded (PERF.md): with JOL, the retained size of a queue holding
 * {@value #N} distinct keys added and not yet taken, minus the same queue empty, minus the keys'
 * own objects ({@code Integer}s), divided by {@value #N}. Array and table slack counts: it is
 * memory the queue holds.
 *
 * <p>Contenders: {@code fifo} ({@code WorkQueue}, unnamed), {@code priority} ({@code
 * PriorityWorkQueue}), and the baselines {@code linkedhashset} (an insertion-ordered set: the
 * least a queue with de-duplication can keep), {@code chmset_lbq} (a {@code ConcurrentHashMap}
 * key set beside a {@code LinkedBlockingQueue}) and {@code naive} ({@link NaiveWorkQueue}).
 *
 * <p><b>The figure is the secondary result {@code bytesPerItem}</b>, per queued key here (the
 * primary score is only the time the measurement took).
 *
 * <p>Run: {@code benchmarks/run.sh quick QueuedMemoryBenchmark}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g", "-Djol.magicFieldOffset=true"})
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@State(Scope.Thread)
public class QueuedMemoryBenchmark {
  static final int N = 1_000_000;

  @Param({"fifo", "priority", "linkedhashset", "chmset_lbq", "naive"})
  public String queue;

  @Benchmark
  public Object measure(DelayedMemoryBenchmark.Bytes out) {
    Object q = create(queue);
    out.bytesPerItem = bytesPerKey(q, N, Keys.spreadRing(1 << 20));
    return q;
  }

  /**
   * The memory {@code queue} (a contender's name) holds per queued key, keys excluded, with
   * {@code n} distinct keys added and not taken: the benchmark's figure, for tests too.
   */
  static double bytesPerKey(String queue, int n) {
    return bytesPerKey(create(queue), n, Keys.spreadRing(Integer.highestOneBit(n) << 1));
  }

  /** The figure for {@code q}, filled with the first {@code n} of {@code keys}. */
  private static double bytesPerKey(Object q, int n, Integer[] keys) {
    Consumer<Integer> add = adder(q);
    long empty = GraphLayout.parseInstance(q).totalSize();
    for (int i = 0; i < n; i++) {
      add.accept(keys[i]);
    }
    long full = GraphLayout.parseInstance(q).totalSize();
    long keyBytes = GraphLayout.parseInstance((Object) keys).totalSize() - VM.current().sizeOf(keys);
    long unusedKeys = (long) (keys.length - n) * VM.current().sizeOf(keys[0]);
    return (double) (full - empty - (keyBytes - unusedKeys)) / n;
  }

  private static Object create(String queue) {
    switch (queue) {
      case "fifo":
        return WorkQueue.<Integer>builder().build();
      case "priority":
        return WorkQueue.<Integer>builder().buildPriority(RateLimiters.exponential(java.time.Duration.ofMillis(5), java.time.Duration.ofSeconds(1)));
      case "linkedhashset":
        return new LinkedHashSet<Integer>();
      case "chmset_lbq":
        return new Object[] {ConcurrentHashMap.newKeySet(), new LinkedBlockingQueue<Integer>()};
      case "naive":
        return new NaiveWorkQueue<Integer>();
      default:
        throw new IllegalArgumentException("unknown queue: " + queue);
    }
  }

  @SuppressWarnings("unchecked")
  private static Consumer<Integer> adder(Object q) {
    if (q instanceof WorkQueue<?> w) {
      return ((WorkQueue<Integer>) w)::add;
    }
    if (q instanceof NaiveWorkQueue<?> n) {
      return ((NaiveWorkQueue<Integer>) n)::add;
    }
    if (q instanceof Object[] pair) {
      Set<Integer> set = (Set<Integer>) pair[0];
      LinkedBlockingQueue<Integer> line = (LinkedBlockingQueue<Integer>) pair[1];
      return k -> {
        if (set.add(k)) {
          line.add(k);
        }
      };
    }
    return ((Set<Integer>) q)::add;
  }
}
