package dev.workqueue.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.WorkQueue;
import java.time.Duration;
import java.util.Optional;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Checks, for each queue kind, the memory-publication promise of a <em>merged</em> add:
 * actions in a thread before {@code add(x)} happen-before the actions of the worker after the
 * {@code get}/{@code poll} that hands out the round covering that add, even when x was
 * already queued so that the add changes nothing.
 *
 * <p>Each test starts with {@code X} queued and {@code data = 0}. The producer writes
 * {@code data = 1} and adds {@code X} again; the worker polls ({@code poll(Duration.ZERO)}
 * never waits) and reads {@code data}. Results: r1 = 1 if the worker got {@code X}, r2 = the
 * {@code data} it read, r3 = {@code size()} after the arbiter's {@code done(X)}.
 *
 * <p><b>Why the arbiter looks at the size.</b> A stale read is a failure only if the
 * producer's add was covered by the round the worker took. The queue itself says which: if
 * the add came after the take, it found {@code X} processing and made it dirty again, so
 * {@code done(X)} queues it for a new round (size 1) and the worker owes the producer
 * nothing yet. If the add was merged into the queued {@code X} that the worker then took,
 * {@code done(X)} leaves the queue empty (size 0), and that worker must see {@code data = 1}:
 * {@code 1, 0, 0} is forbidden.
 *
 * <p><b>Which kinds.</b> Plain, delaying, priority and fair: each takes its own path through
 * the engine. The rate-limiting queue has no test of its own: it is a delaying queue that
 * inherits {@code add} and {@code poll} unchanged (its {@code addRateLimited} is an
 * {@code addAfter}), so its test ran the delaying test's code again, at 18 JVM forks a test.
 *
 * <p>Run by {@code mvn -B verify} (phase integration-test; a FORBIDDEN outcome fails the
 * build). Alone: {@code mvn -B -o -pl jcstress -am verify -DskipTests}. Longer, over jcstress's
 * full matrix of JVM configurations: add {@code -Djcstress.mode=quick} (or {@code default},
 * {@code tough}). Skip: {@code -Djcstress.skip=true}. Reports: {@code
 * jcstress/target/jcstress/index.html}.
 */
public final class MergedAddPublication {
  private MergedAddPublication() {}

  static final String X = "X";

  /** {@code poll(Duration.ZERO)}: never waits; the checked exception cannot happen here. */
  static Optional<String> pollNow(WorkQueue<String> queue) {
    try {
      return queue.poll(Duration.ZERO);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The arbiter: done(X) if the worker got it, then r3 = size (0: merged, 1: a new round). */
  static void settle(WorkQueue<String> queue, III_Result r) {
    if (r.r1 == 1) {
      queue.done(X);
    }
    r.r3 = queue.size();
  }

  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "add merged into the round the worker took; the worker saw data = 1")
  @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker saw data = 1 anyway")
  @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker read data before it was written")
  @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "add merged into the round the worker took, yet the worker saw stale data = 0")
  @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poll found nothing (not expected: X is queued from the start)")
  @State
  public static class Basic {
    final WorkQueue<String> queue = WorkQueue.create();
    int data;

    public Basic() {
      queue.add(X);
    }

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(III_Result r) {
      if (pollNow(queue).isPresent()) { // X: the only item there is
        r.r1 = 1;
        r.r2 = data;
      }
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(queue, r);
    }
  }

  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "add merged into the round the worker took; the worker saw data = 1")
  @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker saw data = 1 anyway")
  @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker read data before it was written")
  @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "add merged into the round the worker took, yet the worker saw stale data = 0")
  @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poll found nothing (not expected: X is queued from the start)")
  @State
  public static class Delaying {
    final DelayingQueue<String> queue = DelayingQueue.create();
    int data;

    public Delaying() {
      queue.add(X);
    }

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(III_Result r) {
      if (pollNow(queue).isPresent()) { // X: the only item there is
        r.r1 = 1;
        r.r2 = data;
      }
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(queue, r);
    }
  }

  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "add merged into the round the worker took; the worker saw data = 1")
  @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker saw data = 1 anyway")
  @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker read data before it was written")
  @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "add merged into the round the worker took, yet the worker saw stale data = 0")
  @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poll found nothing (not expected: X is queued from the start)")
  @State
  public static class Priority {
    final PriorityWorkQueue<String> queue = PriorityWorkQueue.create();
    int data;

    public Priority() {
      queue.add(X); // priority 0
    }

    @Actor
    public void producer() {
      data = 1;
      queue.add(X); // priority 0: merged into the queued X
    }

    @Actor
    public void worker(III_Result r) {
      if (pollNow(queue).isPresent()) { // X: the only item there is
        r.r1 = 1;
        r.r2 = data;
      }
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(queue, r);
    }
  }

  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "add merged into the round the worker took; the worker saw data = 1")
  @Outcome(id = "1, 1, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker saw data = 1 anyway")
  @Outcome(id = "1, 0, 1", expect = ACCEPTABLE, desc = "add after the take (X back at done); the worker read data before it was written")
  @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "add merged into the round the worker took, yet the worker saw stale data = 0")
  @Outcome(id = "0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "poll found nothing (not expected: X is queued from the start)")
  @State
  public static class Fair {
    final WorkQueue<String> queue = WorkQueue.<String>builder().fairBy(k -> k).build();
    int data;

    public Fair() {
      queue.add(X);
    }

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(III_Result r) {
      if (pollNow(queue).isPresent()) { // X: the only item there is
        r.r1 = 1;
        r.r2 = data;
      }
    }

    @Arbiter
    public void arbiter(III_Result r) {
      settle(queue, r);
    }
  }
}
