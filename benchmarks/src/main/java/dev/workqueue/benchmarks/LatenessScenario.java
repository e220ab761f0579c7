package dev.workqueue.benchmarks;

import java.time.Duration;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Control;

/**
 * The JMH life cycle the lateness benchmarks share ({@link LatenessBenchmark}, {@link
 * SaturatedLatenessBenchmark}): a {@link LatenessRig} built once per trial, its histogram reset
 * before each iteration, what is in flight drained after it and the consumer's figures published
 * then; a producer on a fixed schedule and a consumer that records lateness.
 */
@State(Scope.Group)
public abstract class LatenessScenario {
  /** The most a producer adds in one call when behind its schedule. */
  static final int BURST = 64;

  @Param({"toolkit", "delayqueue", "peer"})
  public String queue;

  LatenessRig rig;
  /** The consumer's counters, filled in at the iteration's tear-down (JMH reads them after). */
  private LatenessRig.Lateness out;
  private long next; // the producer's schedule

  /** Far-future items to hold in the queue besides the scenario's. */
  abstract int pending();

  @Setup(Level.Trial)
  public void setUpTrial() {
    rig = new LatenessRig(queue, pending());
  }

  @Setup(Level.Iteration)
  public void setUpIteration() {
    rig.histogram.reset();
    out = null;
    next = 0;
  }

  @TearDown(Level.Iteration)
  public void tearDownIteration() {
    rig.drain();
    if (out != null) {
      out.publish(rig.histogram);
    }
  }

  @TearDown(Level.Trial)
  public void tearDownTrial() {
    rig.q.close();
  }

  /**
   * The producer's step: adds every item its schedule (one per {@code periodNanos}) has made
   * due, each due {@code delay} ahead, at most {@link #BURST} and while the in-flight bound
   * allows. A producer more than a delay behind its schedule drops the debt instead of
   * bursting to catch up, so a queue slower than the schedule is fed as fast as it takes.
   *
   * @return how many it added; the caller idles when none
   */
  final int produce(Duration delay, long delayNanos, long periodNanos) {
    long now = System.nanoTime();
    if (next == 0 || now - next > delayNanos) {
      next = now;
    }
    int n = 0;
    while (next - now <= 0 && n < BURST && rig.roomForMore()) {
      rig.add(delay, delayNanos);
      next += periodNanos;
      n++;
    }
    return n;
  }

  /** The consumer's step: takes one item and records its lateness into {@code out}'s figures. */
  final boolean consume(Control control, LatenessRig.Lateness out) throws InterruptedException {
    if (this.out != out) {
      this.out = out; // once: a write per call would bounce the cache line the producer reads
    }
    return rig.takeOne(control);
  }
}
