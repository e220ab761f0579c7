package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of adding an item that is already queued, which must change nothing: the common
 * case for a controller whose informer fires several events per object before a worker gets
 * to the key. The queue holds {@value #QUEUED} items; each op adds one of them again. One
 * thread. Bar: time ≤ naive and 0 B/op ({@code -prof gc}).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DedupHitBenchmark -prof gc}, or
 * {@code benchmarks/run.sh quick DedupHitBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class DedupHitBenchmark {
  static final int QUEUED = 1024;

  @Param({"toolkit", "naive", "peer"})
  public String queue;

  private QueueUnderTest<Integer> q;
  private final Integer[] keys = Keys.ring(QUEUED);
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    q = Contender.createDeduplicating(queue);
    for (Integer key : keys) {
      q.add(key);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    q.close();
  }

  @Benchmark
  public void addQueued() throws InterruptedException {
    q.add(keys[next++ & (QUEUED - 1)]);
  }
}
