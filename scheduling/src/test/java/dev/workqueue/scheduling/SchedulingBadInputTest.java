package dev.workqueue.scheduling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The scheduling queue's table of bad input, open and closed: each row is a call with bad input
 * or out of order, its documented result (an exception, a return value, or a no-op), and then
 * the check that the queue still works: an open queue still hands out a fresh item; a closed
 * one stays closed. (Null arguments: {@code NullArgumentsTest}.)
 */
class SchedulingBadInputTest {
  @FunctionalInterface
  interface SchedulingCall {
    Object run(SchedulingQueue<String, String> q) throws Exception;
  }

  record SchedulingRow(String name, boolean closeFirst, SchedulingCall call,
      Class<? extends Throwable> thrown, Object returned) {}

  static List<SchedulingRow> schedulingRows() {
    return List.of(
        new SchedulingRow("done(unknown id) is ignored", false, q -> q.done(12345),
            null, false),
        new SchedulingRow("second done of one attempt is ignored", false, q -> {
          q.add("x");
          long id = q.pop().orElseThrow().id();
          assertTrue(q.done(id));
          return q.done(id);
        }, null, false),
        new SchedulingRow("requeueFailed after done is rejected", false, q -> {
          q.add("x");
          PoppedItem<String, String> p = q.pop().orElseThrow();
          q.done(p.id());
          q.requeueFailed(p, Rejectors.none());
          return null;
        }, IllegalStateException.class, null),
        new SchedulingRow("delete(unknown) returns false", false, q -> q.delete("nobody"),
            null, false),
        new SchedulingRow("activate(unknown) is ignored", false, q -> {
          q.activate(List.of("nobody"));
          return q.pending().summary();
        }, null, "activeQ:0; backoffQ:0; unschedulable:0"),
        new SchedulingRow("update with another key is rejected", false, q -> {
          q.update("a", "b");
          return null;
        }, IllegalArgumentException.class, null),
        new SchedulingRow("add after close is ignored", true, q -> {
          q.add("x");
          return q.pending().summary();
        }, null, "activeQ:0; backoffQ:0; unschedulable:0"),
        new SchedulingRow("pop after close returns empty at once", true, q -> q.pop(),
            null, Optional.empty()),
        new SchedulingRow("delete after close returns false", true, q -> q.delete("x"),
            null, false),
        new SchedulingRow("done after close is ignored", true, q -> q.done(1), null, false),
        new SchedulingRow("close twice is idempotent", true, q -> {
          q.close();
          return q.pending().summary();
        }, null, "activeQ:0; backoffQ:0; unschedulable:0"),
        new SchedulingRow("requeueFailed of an attempt popped before close is dropped", false,
            q -> {
              q.add("x");
              PoppedItem<String, String> p = q.pop().orElseThrow();
              q.close();
              q.requeueFailed(p, Rejectors.none());
              return q.pending().summary();
            }, null, "activeQ:0; backoffQ:0; unschedulable:0"),
        new SchedulingRow("a key function returning null is reported", false, q -> {
          q.add("");
          return null;
        }, NullPointerException.class, null));
  }

  @TestFactory
  Stream<DynamicTest> schedulingQueue_everyBadInputHasADocumentedResult_andItKeepsWorking() {
    return schedulingRows().stream().map(row -> dynamicTest(row.name(), () ->
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> check(row))));
  }

  private static void check(SchedulingRow row) throws Exception {
    SchedulingQueue<String, String> q = SchedulingQueue
        .<String, String>builder(s -> s.isEmpty() ? null : s)
        .clock(new FakeClock())
        .build();
    if (row.closeFirst()) {
      q.close();
    }
    if (row.thrown() != null) {
      Throwable t = assertThrows(row.thrown(), () -> row.call().run(q));
      assertNotNull(t.getMessage());
    } else {
      assertEquals(row.returned(), row.call().run(q));
    }
    // Still works: a fresh item goes in and comes out while open; nothing once closed.
    for (Optional<PoppedItem<String, String>> p = Optional.empty(); ; ) {
      if (q.pending().items().isEmpty()) {
        break;
      }
      p = q.pop();
      q.done(p.orElseThrow().id());
    }
    q.add("fresh");
    Optional<PoppedItem<String, String>> fresh = q.pop();
    if (fresh.isPresent()) {
      assertEquals("fresh", fresh.get().item());
      assertTrue(q.done(fresh.get().id()));
    } else {
      assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary(),
          "closed: nothing went in");
    }
    assertFalse(q.pending().summary().isEmpty());
  }
}
