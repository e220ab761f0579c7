package dev.workqueue.lincheck;

import dev.workqueue.WorkQueue;
import dev.workqueue.testing.LincheckRuns;
import dev.workqueue.testing.StressScale;
import java.time.Duration;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link WorkQueue}'s non-blocking operations, checked by Lincheck against
 * {@link WorkQueueSpec} (FIFO + dirty set + processing set; an unpaired {@code done} is
 * ignored). Keys come from a small set so that scenarios re-add, hand out and finish the same
 * keys: Lincheck calls {@code done} for keys that were never handed out, too, which the queue
 * must ignore exactly as the model does.
 *
 * <p><b>What is not checked here.</b> The blocking {@link WorkQueue#get()} (and a
 * {@code poll} with a positive timeout) cannot be expressed in Lincheck's model for
 * non-blocking data structures: an operation that parks until another thread acts has no
 * sequential specification (sequentially, {@code get} on an empty queue never returns).
 * Lincheck models waiting only as the suspension of a Kotlin coroutine; a Java thread parked on
 * a {@code Condition} would be reported as a deadlock or a hung invocation.
 * {@code poll(Duration.ZERO)} is the same take without the wait, so it stands in for
 * {@code get}; the waiting and waking are covered by {@code QueueStressTest} and the unit
 * tests. Shutdown is left out here to keep the
 * state space small; {@link DelayingQueueLincheckTest} includes it.
 *
 * <p>Scenarios are small (2-3 threads of 3 actors) and the run counts low, so the two checks
 * together take seconds in {@code mvn verify}; {@code STRESS_SCALE} (see {@link StressScale})
 * multiplies the iterations for a longer search when changing the queue.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class WorkQueueLincheckTest {
  private final WorkQueue<Integer> queue = WorkQueue.create();

  @Operation
  public void add(@Param(name = "key") int key) {
    queue.add(key);
  }

  /** The non-blocking take: the item handed out, or null when nothing is queued. */
  @Operation
  public Integer poll() throws InterruptedException {
    return queue.poll(Duration.ZERO).orElse(null);
  }

  @Operation
  public void done(@Param(name = "key") int key) {
    queue.done(key);
  }

  @Operation
  public int size() {
    return queue.size();
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(WorkQueueSpec.class, 4, 100)
        .check(getClass());
  }

  @Test
  void stress() {
    LincheckRuns.stress(WorkQueueSpec.class, 10, 300)
        .check(getClass());
  }
}
