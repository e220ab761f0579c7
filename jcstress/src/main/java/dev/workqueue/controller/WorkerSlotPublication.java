package dev.workqueue.controller;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JL_Result;

/**
 * Checks the publication promise of a controller worker's {@link WorkerSlot}: the worker writes
 * its slot with release stores and {@code stop}/{@code status} read it with acquire loads, so a
 * reader that sees a later write of the worker also sees every earlier one. The worker sets the
 * key it reconciles, then records when its previous reconcile ended; a reader that reads the
 * end time first and sees the new one must then see the key, not the slot's initial null.
 *
 * <p>In the controller's package (the slot is package-private there) but in this module, which
 * is never deployed: classpath-only test code.
 */
@JCStressTest
@Outcome(id = "-1, null", expect = ACCEPTABLE, desc = "read before both writes")
@Outcome(id = "-1, K", expect = ACCEPTABLE, desc = "read between the two writes")
@Outcome(id = "5, K", expect = ACCEPTABLE, desc = "read after both writes")
@Outcome(id = "5, null", expect = FORBIDDEN, desc = "saw the later write, not the earlier one")
@State
public class WorkerSlotPublication {
  final WorkerSlot<String> slot = new WorkerSlot<>(-1);

  @Actor
  public void worker() {
    slot.reconciling("K");
    slot.ended(5);
  }

  @Actor
  public void reader(JL_Result r) {
    long end = slot.lastEnd();
    String key = slot.key();
    r.r1 = end;
    r.r2 = key;
  }
}
