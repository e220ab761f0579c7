package dev.workqueue.lincheck;

import dev.workqueue.WorkQueue;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;

/**
 * Linearizability of {@link WorkQueue} (client-go's FIFO) against {@link WorkQueueSpec} (FIFO +
 * dirty set + processing set; an unpaired {@code done} is ignored): see {@link
 * QueueLincheckHarness}.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:4")
public class WorkQueueLincheckTest extends QueueLincheckHarness {

  public WorkQueueLincheckTest() {
    super(WorkQueue.create(), WorkQueueSpec.class);
  }
}
