package dev.workqueue;

import java.util.List;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The queue's {@link EntryMap} ({@link EntryMapLincheckHarness}) with four bins, where keys 1, 5
 * and 9 share bin 1 and nothing resizes: races inside one chain.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class EntryMapChainsLincheckTest extends EntryMapLincheckHarness {
  public EntryMapChainsLincheckTest() {
    super(4);
  }

  /**
   * The removal of 5, the head of the chain 5, 1, holds the stripe lock and compare-and-sets
   * the head, while an insert of 9 pushes in front of it: the removal must find 5 behind the new
   * head.
   */
  @Test
  void modelChecking_aPushInFrontOfAHeadBeingRemoved() throws NoSuchMethodException {
    Class<?> test = EntryMapChainsLincheckTest.class;
    checkRace(test, List.of(actor(test, "putIfAbsent", 1), actor(test, "putIfAbsent", 5)),
        List.of(List.of(actor(test, "remove", 5)), List.of(actor(test, "putIfAbsent", 9))),
        List.of(actor(test, "contains", 5), actor(test, "contains", 1),
            actor(test, "contains", 9)));
  }
}
