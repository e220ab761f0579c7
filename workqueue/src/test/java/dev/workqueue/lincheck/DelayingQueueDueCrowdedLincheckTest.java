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
 * {@link DelayingQueueDueLincheckTest}'s generated scenarios on a queue whose consumers count
 * as crowded from the start, so that the add of a new item, under the lock there, races the take
 * that hands the item out from the waiting room or promotes it.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class DelayingQueueDueCrowdedLincheckTest extends DelayingQueueDueLincheckTest {
  @Override
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return CrowdedQueues.delaying(b);
  }

  /**
   * A crowded add of key 1 races another thread's delayed add of key 1, a step of the clock
   * past it and that thread's take, which finds key 1 due in the waiting room; a third thread
   * takes and finishes key 1. Key 1 comes out once for the two adds, unless one of them came
   * after a take. (Written when a crowded add put its entry in the map before it had the lock:
   * the take then had to put that entry in line itself, not wait for the add.)
   */
  @Test
  void modelChecking_crowdedAddMeetingATakeOfItsDueKey() throws NoSuchMethodException {
    Class<?> test = getClass();
    QueueLincheckHarness.checkRace(test, DueDelayingQueueSpec.class,
        List.of(),
        List.of(List.of(actor(test, "add", 1), actor(test, "size")),
            List.of(actor(test, "addAfter", 1), actor(test, "step"), actor(test, "poll")),
            List.of(actor(test, "poll"), actor(test, "done", 1))),
        List.of(actor(test, "size"), actor(test, "poll"), actor(test, "waitingCount")));
  }

  /**
   * Not run here (overridden without {@code @Test}): its {@code done} of a key handed out from
   * the waiting room races a delayed add, which takes the lock crowded or not; {@link
   * DelayingQueueDueLincheckTest} checks it, and here it would add some 15 s to the build.
   */
  @Override
  void modelChecking_doneOfAKeyFromTheWaitingRoomRacingADelayedAddOfIt() {}

  /**
   * Not run here: the counts take the lock and look at no add path, so a queue built crowded
   * runs the same code as {@link DelayingQueueDueLincheckTest}'s, which runs this race.
   */
  @Override
  void modelChecking_countsRacingAStepAndAPromotionOfOneKey() {}
}
