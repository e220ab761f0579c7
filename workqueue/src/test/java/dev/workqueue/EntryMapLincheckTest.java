package dev.workqueue;

import dev.workqueue.testsupport.LincheckRuns;
import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of the queue's {@link EntryMap} ({@link EntryMapLincheckHarness}) from one
 * bin, so that it resizes early in the generated scenarios and operations race the resize's
 * moving of a bin; one hand-written scenario races a reader with the split of its chain.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class EntryMapLincheckTest extends EntryMapLincheckHarness {
  public EntryMapLincheckTest() {
    super(1);
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(Spec.class, 8, 300).actorsBefore(3).check(getClass());
  }

  /**
   * A resize splits the chain 3, 1 (two bins) into bins 1 and 3 (four bins) while another
   * thread looks for 1 in it: a reader that was at 3 when 3's link was cut must look again in
   * the new table, and an insert of 1 must find it there.
   */
  @Test
  void modelChecking_aReaderInAChainThatAResizeSplits() throws NoSuchMethodException {
    Class<?> test = EntryMapLincheckTest.class;
    checkRace(test, List.of(actor(test, "putIfAbsent", 1), actor(test, "putIfAbsent", 3),
            actor(test, "putIfAbsent", 2)),
        List.of(List.of(actor(test, "putIfAbsent", 4)),
            List.of(actor(test, "contains", 1), actor(test, "putIfAbsent", 1))),
        List.of(actor(test, "contains", 1), actor(test, "contains", 3)));
  }

  /**
   * A removal relinks the chain 3, 1 (taking 1 out from behind 3) while a resize moves that
   * chain into the next table: the two must not interleave, or the resize carries the removed
   * entry over (or loses 3).
   */
  @Test
  void modelChecking_aRemovalInAChainThatAResizeMoves() throws NoSuchMethodException {
    Class<?> test = EntryMapLincheckTest.class;
    checkRace(test, List.of(actor(test, "putIfAbsent", 1), actor(test, "putIfAbsent", 3),
            actor(test, "putIfAbsent", 2)),
        List.of(List.of(actor(test, "putIfAbsent", 4)),
            List.of(actor(test, "remove", 1), actor(test, "remove", 3))),
        List.of(actor(test, "contains", 1), actor(test, "contains", 3),
            actor(test, "contains", 4)));
  }

  @Test
  void stress() {
    LincheckRuns.stress(Spec.class, 20, 300).actorsBefore(3).check(getClass());
  }
}
