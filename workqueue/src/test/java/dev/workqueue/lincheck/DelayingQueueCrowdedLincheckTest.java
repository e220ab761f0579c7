package dev.workqueue.lincheck;

import dev.workqueue.CrowdedQueues;
import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueBuilder;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;

/**
 * {@link DelayingQueueLincheckTest}'s checks on a queue whose consumers count as crowded from the
 * start: a new item joins the line under the lock, not through the intake, so its add races
 * takes, {@code done} and {@code shutDown} on that path. (A run of takes by one thread would
 * turn it off again; the scenarios are far shorter.)
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class DelayingQueueCrowdedLincheckTest extends DelayingQueueLincheckTest {
  @Override
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return CrowdedQueues.delaying(b);
  }
}
