package dev.workqueue.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class QueueCountsTest {
  @Test
  void waiting_isEverythingButInFlight_andOfReadsOnePart() {
    QueueCounts c = new QueueCounts(1, 2, 3, 4, 5);
    assertEquals(10, c.waiting());
    assertEquals(1, c.of(ItemStatus.Part.ACTIVE));
    assertEquals(2, c.of(ItemStatus.Part.BACKOFF));
    assertEquals(3, c.of(ItemStatus.Part.UNSCHEDULABLE));
    assertEquals(4, c.of(ItemStatus.Part.GATED));
    assertEquals(5, c.of(ItemStatus.Part.IN_FLIGHT));
  }

  @Test
  void negativeCount_isRefused_namingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new QueueCounts(0, 0, 0, -1, 0));
    assertTrue(e.getMessage().startsWith("gated"), e.getMessage());
  }
}
