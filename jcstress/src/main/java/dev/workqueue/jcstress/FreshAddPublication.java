package dev.workqueue.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.WorkQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Checks, for each queue kind, the memory-publication promise of the add of a <em>new</em>
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
 * <p>The same kinds as {@link MergedAddPublication}, and run with it.
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

  /**
   * Two threads add the same new item at once (FIFO, no lock), so one may find the other's entry
   * in the map before it is published, wait for that without the lock, and merge its add into
   * the round. The producer writes {@code data = 1} and adds {@code X}; the worker adds {@code X}
   * itself, then polls (so it always gets {@code X}) and reads {@code data}. The arbiter calls
   * {@code done(X)} and reads the size: 0 means the producer's add was covered by the round the
   * worker took (an add after the take finds {@code X} processing, and {@code done} queues it
   * again), so the worker must have seen {@code data = 1}. Results: r1 = 1 if the worker got
   * {@code X}, r2 = the {@code data} it read, r3 = the size; {@code 1, 0, 0} is forbidden.
   */
  @JCStressTest
  @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the producer's add covered by the take; its write seen")
  @Outcome(id = {"1, 1, 1", "1, 0, 1"}, expect = ACCEPTABLE, desc = "the producer's add came after the take (X back at done)")
  @Outcome(id = "1, 0, 0", expect = FORBIDDEN, desc = "the producer's add covered by the take, yet its write not seen")
  @State
  public static class TwoAdders {
    final WorkQueue<String> queue = WorkQueue.create();
    int data;

    @Actor
    public void producer() {
      data = 1;
      queue.add(X);
    }

    @Actor
    public void worker(III_Result r) {
      queue.add(X);
      if (MergedAddPublication.pollNow(queue).isPresent()) {
        r.r1 = 1;
        r.r2 = data;
      }
    }

    @Arbiter
    public void settle(III_Result r) {
      MergedAddPublication.settle(queue, r);
    }
  }
}
