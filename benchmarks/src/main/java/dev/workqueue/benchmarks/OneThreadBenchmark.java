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
 * The uncontended cost of one item's round trip on one thread: {@code add}, {@code get},
 * {@code done} (for ArrayBlockingQueue: put and take, the same lock path as offer and poll).
 * The queue is empty between invocations; keys cycle through 1024 distinct boxed integers.
 * Time per op, and allocation per op with {@code -prof gc} ({@code gc.alloc.rate.norm}).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar OneThreadBenchmark -prof gc}, or
 * {@code benchmarks/run.sh quick OneThreadBenchmark}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class OneThreadBenchmark {
  @Param({"toolkit", "naive", "abq", "peer"})
  public String queue;

  private QueueUnderTest<Integer> q;
  private final Integer[] keys = Keys.ring(1024);
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    q = Contender.create(queue);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    q.close();
  }

  @Benchmark
  public Integer addGetDone() throws InterruptedException {
    q.add(keys[next++ & (keys.length - 1)]);
    Integer item = q.take();
    q.done(item);
    return item;
  }
}
