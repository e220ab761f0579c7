package dev.workqueue.lincheck;

import dev.workqueue.WorkQueue;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;

/**
 * Linearizability of the fair ready order ({@code WorkQueueBuilder.fairBy}), on keys split by
 * parity into two dimension values that take turns, FIFO within each, checked against {@link
 * FairQueueSpec}: the FIFO's model, whose single FIFO is the fair order with one dimension
 * value. See {@link QueueLincheckHarness}; the stress run catches a value served twice in a
 * row.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:4")
public class FairQueueLincheckTest extends QueueLincheckHarness {

  public FairQueueLincheckTest() {
    super(WorkQueue.<Integer>builder().fairBy(FairQueueLincheckTest::parity).build(),
        FairQueueSpec.class);
  }

  static int parity(int key) {
    return key & 1;
  }
}
