package dev.workqueue.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
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
import org.openjdk.jmh.infra.Control;

/**
 * An add storm: two producers re-add {@value #HOT_KEYS} hot keys as fast as they can (an
 * informer resync, a flapping object) while one consumer loops {@code get} → {@code done}.
 * Most adds are de-duplicated; what matters is how much the storm slows the worker. <b>The
 * figure is the consumer's rate</b>, secondary result {@code storm_consume}, in ops/s.
 *
 * <p>The producers never block, and the consumer stops blocking once JMH stops measuring
 * it, so iterations always end (see {@link HandOffBenchmark}).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar AddStormBenchmark}, or
 * {@code benchmarks/run.sh quick AddStormBenchmark}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Group)
public class AddStormBenchmark {
  static final int HOT_KEYS = 16;

  @Param({"toolkit", "naive", "peer"})
  public String queue;

  private QueueUnderTest<Integer> q;
  private final Integer[] hot = Keys.ring(HOT_KEYS);

  /** Each producer walks the hot keys from its own position. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) Thread.currentThread().getId();
  }

  @Setup(Level.Iteration)
  public void setUp() {
    q = Contender.createDeduplicating(queue);
  }

  @TearDown(Level.Iteration)
  public void tearDown() {
    q.close();
  }

  @Benchmark
  @Group("storm")
  @GroupThreads(2)
  public void storm_readd(Cursor cursor) throws InterruptedException {
    q.add(hot[cursor.next++ & (HOT_KEYS - 1)]);
  }

  @Benchmark
  @Group("storm")
  @GroupThreads(1)
  public Integer storm_consume(Control control) throws InterruptedException {
    Integer item = control.stopMeasurement ? q.tryTake() : q.take();
    if (item != null) {
      q.done(item);
    }
    return item;
  }
}
