package dev.workqueue.lincheck;

/**
 * The specification of {@link FairQueueDueLincheckTest}: {@link DueDelayingQueueSpec} on the
 * fair model by key parity, so a step adds the waiting keys, in the order they began to wait,
 * to their values' lines.
 */
public class DueFairQueueSpec extends DueDelayingQueueSpec {
  public DueFairQueueSpec() {
    super(WorkQueueModel.fair(FairQueueLincheckTest::parity));
  }
}
