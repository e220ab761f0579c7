package dev.workqueue.lincheck;

import dev.workqueue.CrowdedQueues;
import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueBuilder;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link DelayingQueueLincheckTest}'s checks on a queue whose consumers count as crowded from the
 * start: the add of a new item takes the lock instead of the intake (a {@code done} that ends a
 * round still skips it), so its add races takes, other adds and {@code shutDown} on that path.
 * (A run of takes by one thread would turn it off again; the scenarios are far shorter.)
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class DelayingQueueCrowdedLincheckTest extends DelayingQueueLincheckTest {
  @Override
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return CrowdedQueues.delaying(b);
  }

  /**
   * Adds of a key whose round ends: one after its {@code done}, one plain and one with no
   * delay, racing takes. When a crowded add put its entry in the map without the lock and in
   * line under it, a first version deadlocked here ("The execution has hung"): the locked add
   * that found the entry waited for its publication while holding the lock the entry's add
   * waited for. A crowded add now makes its whole change under the lock.
   */
  @Test
  void modelChecking_addsRacingANewRound() throws NoSuchMethodException {
    Class<?> test = getClass();
    QueueLincheckHarness.checkRace(test, DelayingQueueSpec.class,
        List.of(actor(test, "add", 1), actor(test, "poll")),
        List.of(List.of(actor(test, "done", 1), actor(test, "add", 1)),
            List.of(actor(test, "add", 1)),
            List.of(actor(test, "addAfterZero", 1))),
        List.of(actor(test, "poll"), actor(test, "size")));
  }

  /**
   * Not run here (overridden without {@code @Test}): a {@code done} racing an add of its item
   * meets an entry that is processing, which every add takes the locked path for, crowded or
   * not; {@link DelayingQueueLincheckTest} checks it, and here it would add some 8 s to the
   * build.
   */
  @Override
  void modelChecking_doneRacingAnAddOfItsItem() {}
}
