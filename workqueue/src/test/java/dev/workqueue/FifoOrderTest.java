package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The FIFO order's two lines: entries added now, and due items by their ready time. */
class FifoOrderTest {
  private final FifoOrder<String> order = new FifoOrder<>();

  private Entry<String> ready(String item) {
    Entry<String> e = order.newEntry(item, 0);
    e.ready = Entry.READY;
    return e;
  }

  private List<String> pollAll() {
    List<String> out = new ArrayList<>();
    for (Entry<String> e; (e = order.poll(0)) != null; ) {
      out.add(e.item);
    }
    return out;
  }

  @Test
  void dueItems_outOfTurn_areInsertedByReadyTime_andTheLinesMergeByTime() {
    order.appendDue(ready("d30"), 30);
    order.appendDue(ready("d10"), 10); // before every due entry
    order.appendDue(ready("d20"), 20); // between, found from the head
    order.appendDue(ready("d25"), 25); // between, found from the cursor (d20)
    order.appendDue(ready("d20b"), 20); // a tie goes after the entries ready at that time
    order.append(ready("m15"), 15);
    order.append(ready("m30"), 30); // a tie with a due entry: the main line first
    assertTrue(order.checkInvariants());
    assertEquals(7, order.size());
    assertEquals(List.of("d10", "m15", "d20", "d20b", "d25", "m30", "d30"), pollAll());
    assertEquals(0, order.size());
  }

  @Test
  void theCursor_isForgotten_whenItsEntryIsHandedOut() {
    order.appendDue(ready("d10"), 10);
    order.appendDue(ready("d30"), 30);
    order.appendDue(ready("d40"), 40);
    order.appendDue(ready("d20"), 20); // the cursor
    assertEquals("d10", order.poll(0).item);
    assertEquals("d20", order.poll(0).item); // the cursor's entry leaves the line
    order.appendDue(ready("d35"), 35); // between d30 and d40: not found from the entry handed out
    assertTrue(order.checkInvariants());
    assertEquals(List.of("d30", "d35", "d40"), pollAll());
    assertNull(order.poll(0));
  }
}
