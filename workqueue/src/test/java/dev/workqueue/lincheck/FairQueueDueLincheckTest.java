package dev.workqueue.lincheck;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueueBuilder;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;

/**
 * {@link DelayingQueueDueLincheckTest}'s checks (the clock moves while delayed adds fall due)
 * on the fair ready order, keys split by parity ({@link FairQueueLincheckTest#parity}), against
 * {@link DueFairQueueSpec}. The fair order promotes due items in batches under the lock (the
 * FIFO order merges them by time instead), and its {@code done} always takes the lock: the
 * counts and the shutdown share the engine's one-reading code with the FIFO.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class FairQueueDueLincheckTest extends DelayingQueueDueLincheckTest {

  @Override
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return b.fairBy(FairQueueLincheckTest::parity).buildDelaying();
  }

  @Override
  protected Class<?> spec() {
    return DueFairQueueSpec.class;
  }

  /**
   * Not run here: the race it explores is the {@code done} that skips the lock, and the fair
   * order's {@code done} always takes it.
   */
  @Override
  void modelChecking_doneOfAKeyFromTheWaitingRoomRacingADelayedAddOfIt() {}
}
