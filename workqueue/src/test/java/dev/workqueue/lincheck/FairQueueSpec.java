package dev.workqueue.lincheck;

/** The specification of {@link FairQueueLincheckTest}: the fair model by key parity. */
public class FairQueueSpec extends WorkQueueSpec {
  public FairQueueSpec() {
    super(WorkQueueModel.fair(FairQueueLincheckTest::parity));
  }
}
