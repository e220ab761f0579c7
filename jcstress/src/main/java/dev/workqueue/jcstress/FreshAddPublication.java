package dev.workqueue.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Checks, for every queue kind, the memory-publication promise of the add of a <em>new</em>
 * item: actions in a thread before {@code add(x)} happen-before the actions of the worker after
 * the {@code poll} that hands {@code x} out. On a FIFO queue without metrics that add takes no
 * lock: its entry goes into the map and onto the order's lock-free intake, which the worker's
 * take drains under the lock; the push must publish the producer's writes.
 *
 * <p>Each test starts with an empty queue and {@code data = 0}. The producer writes {@code
 * data = 1} and adds {@code X}; the worker polls once ({@code poll(Duration.ZERO)} never waits)
 * and, if it got {@code X}, reads {@code data}. Results: r1 = 1 if the worker got {@code X},
 * r2 = the {@code data} it read. {@code 1, 0} is forbidden.
 *
 * <p>Run with the other jcstress tests (see {@link MergedAddPublication}).
 */
public final class FreshAddPublication {
  private FreshAddPublication() {}

  static final String X = "X";

  /** A FIFO queue: the add takes no lock (the intake). */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker got X and saw data = 1")
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the poll came before the add")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the worker got X, yet saw stale data = 0")
  @State
  public static class Basic {
    final WorkQueue<String> queue = WorkQueue.create();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(II_Result r) {
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }
  }

  /** A FIFO queue: the add takes no lock (the intake). */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker got X and saw data = 1")
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the poll came before the add")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the worker got X, yet saw stale data = 0")
  @State
  public static class Delaying {
    final DelayingQueue<String> queue = DelayingQueue.create();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(II_Result r) {
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }
  }

  /** A FIFO queue: the add takes no lock (the intake). */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker got X and saw data = 1")
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the poll came before the add")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the worker got X, yet saw stale data = 0")
  @State
  public static class RateLimiting {
    final RateLimitingQueue<String> queue = RateLimitingQueue.create();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(II_Result r) {
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }
  }

  /** The add takes the lock. */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker got X and saw data = 1")
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the poll came before the add")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the worker got X, yet saw stale data = 0")
  @State
  public static class Priority {
    final PriorityWorkQueue<String> queue = PriorityWorkQueue.create();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(II_Result r) {
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }
  }

  /** The add takes the lock. */
  @JCStressTest
  @Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the worker got X and saw data = 1")
  @Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the poll came before the add")
  @Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the worker got X, yet saw stale data = 0")
  @State
  public static class Fair {
    final WorkQueue<String> queue = WorkQueue.<String>builder().fairBy(k -> k).build();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(II_Result r) {
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }
  }
}
