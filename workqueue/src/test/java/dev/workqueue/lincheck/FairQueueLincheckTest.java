package dev.workqueue.lincheck;

import dev.workqueue.WorkQueue;
import dev.workqueue.testing.LincheckRuns;
import java.time.Duration;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the fair ready order ({@code WorkQueueBuilder.fairBy}): keys 1-4 split by
 * parity into two dimension values that take turns, FIFO within each, checked against {@link
 * FairQueueSpec}. The same operations and limits as {@link WorkQueueLincheckTest}, whose
 * single FIFO is the same model with one dimension value.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:4")
public class FairQueueLincheckTest {
  private final WorkQueue<Integer> queue =
      WorkQueue.<Integer>builder().fairBy(FairQueueLincheckTest::parity).build();

  static int parity(int key) {
    return key & 1;
  }

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
    // More keys added before the parallel part than the other tests: the turns show only once a
    // value has two keys queued beside a key of the other value.
    LincheckRuns.modelChecking(FairQueueSpec.class, 6, 100).actorsBefore(4)
        .check(getClass());
  }

  @Test
  void stress() {
    LincheckRuns.stress(FairQueueSpec.class, 20, 300).actorsBefore(4)
        .check(getClass());
  }
}
