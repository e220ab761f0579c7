package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.NODE_UPDATE;
import static dev.workqueue.scheduling.Fixtures.VOLUME_ADD;
import static dev.workqueue.scheduling.Fixtures.builder;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static dev.workqueue.scheduling.Fixtures.stepSeconds;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SchedulingQueueTest {
  private final FakeClock clock = new FakeClock();

  private static List<String> ids(SchedulingQueue<String, Job> q) {
    List<String> ids = new ArrayList<>();
    q.pending().items().forEach(j -> ids.add(j.id()));
    return ids;
  }

  @Test
  void pop_higherPriorityFirst_thenEarlierTimestamp() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("low", 1));
    clock.stepMillis(1);
    q.add(new Job("high-late", 5));
    q.add(new Job("mid-early", 3));
    clock.stepMillis(1);
    q.add(new Job("high-later", 5));
    q.add(new Job("mid-late", 3));
    List<String> order = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      order.add(popNow(q).key());
    }
    assertEquals(List.of("high-late", "high-later", "mid-early", "mid-late", "low"), order);
    assertEquals(5, q.schedulingCycle());
  }

  @Test
  void gatedItem_waitsInPool_andEntersActiveQWhenItsGateEventOpensIt() throws Exception {
    boolean[] open = {false};
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("quota", j -> open[0], VOLUME_ADD))
        .hint("other", NODE_ADD)
        .build();
    q.add(new Job("a", 0));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    q.onEvent(VOLUME_ADD, null, "v1"); // gate still closed
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    open[0] = true;
    q.onEvent(NODE_ADD, null, "n1"); // not the gate's event: ignored
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    q.onEvent(VOLUME_ADD, null, "v2");
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
    assertEquals("a", popNow(q).key());
  }

  @Test
  void gates_lastFailingGateRunsFirstNextTime() {
    List<String> calls = new ArrayList<>();
    boolean[] secondOpen = {false};
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("first", j -> calls.add("first"), VOLUME_ADD))
        .gate(Gate.of("second", j -> calls.add("second") && secondOpen[0], VOLUME_ADD))
        .build();
    q.add(new Job("a", 0));
    assertEquals(List.of("first", "second"), calls);
    calls.clear();
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals(List.of("second"), calls); // the last failing gate first, and it fails again
    calls.clear();
    secondOpen[0] = true;
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals(List.of("second", "first"), calls);
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void failureWithoutRejector_goesToBackoff_withRejector_toPool() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("err", 0));
    q.add(new Job("rej", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:1", q.pending().summary());
    assertEquals(List.of("err", "rej"), ids(q));
  }

  @Test
  void eventDuringAttempt_acceptedByPendingRejector_goesStraightToActiveQ() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("volume-binding", VOLUME_ADD, (job, o, n) -> QueueingHint.QUEUE)
        .build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(VOLUME_ADD, null, "pv-1");
    q.requeueFailed(p, Rejectors.pending("volume-binding"));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void eventDuringAttempt_acceptedByUnschedulableRejector_goesToBackoff() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, "n1");
    q.requeueFailed(p, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
  }

  @Test
  void eventDuringAttempt_skippedByHint_staysInPool() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD, (job, o, n) -> QueueingHint.SKIP).build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, "n1");
    q.requeueFailed(p, Rejectors.pending("fit"));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void eventBeforePop_isIgnored() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    q.onEvent(NODE_ADD, null, "n1");
    PoppedItem<String, Job> p = popNow(q);
    q.requeueFailed(p, Rejectors.pending("fit"));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void eventOfNoInterest_isNotLogged() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    popNow(q);
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals(0, ((DefaultSchedulingQueue<String, Job>) q).inFlightEventCount());
    q.onEvent(NODE_ADD, null, null);
    assertEquals(1, ((DefaultSchedulingQueue<String, Job>) q).inFlightEventCount());
  }

  @Test
  void pooledItem_movedByMatchingEvent_throughHints() {
    List<Object> seen = new ArrayList<>();
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("fit", NODE_ADD, (job, o, n) -> {
          seen.add(n);
          return "big".equals(n) ? QueueingHint.QUEUE : QueueingHint.SKIP;
        }).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNowUnchecked(q), Rejectors.unschedulable("fit"));
    q.onEvent(NODE_ADD, null, "small");
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    q.onEvent(NODE_ADD, null, "big", j -> false); // preCheck filters it out
    assertEquals("activeQ:0; backoffQ:0; unschedulable:1", q.pending().summary());
    q.onEvent(NODE_ADD, null, "big");
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    assertEquals(List.of("small", "big"), seen);
  }

  @Test
  void throwingHint_countsAsQueue_andNoFunction_countsAsQueue() {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("boom", NODE_ADD, (job, o, n) -> {
          throw new IllegalStateException("hint failed");
        })
        .hint("plain", VOLUME_ADD)
        .build();
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    q.requeueFailed(popNowUnchecked(q), Rejectors.pending("boom"));
    q.requeueFailed(popNowUnchecked(q), Rejectors.pending("plain"));
    q.onEvent(NODE_ADD, null, null);
    assertEquals(List.of("a", "b"), ids(q));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:1", q.pending().summary());
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  /**
   * A gate or hint that throws an {@code Error} that does not mean the JVM is broken (an {@code
   * AssertionError}, as a failed {@code assert} in the caller's code throws, or a {@code
   * StackOverflowError}, whose stack is unwound by then) is treated as a throwing one: the gate
   * holds the item, the hint counts as QUEUE; no item is lost and the call that ran it does not
   * fail. Another {@code VirtualMachineError} still propagates.
   */
  @Test
  void gateOrHintThrowingAnError_isTreatedAsAThrow_andLosesNoItem() throws Exception {
    boolean[] broken = {true};
    SchedulingQueue<String, Job> q = builder(clock)
        .gate(Gate.of("quota", j -> {
          if (broken[0]) {
            throw j.id().equals("a") ? new AssertionError("gate bug")
                : new StackOverflowError("deep gate");
          }
          return true;
        }, VOLUME_ADD))
        .hint("boom", NODE_ADD, (job, o, n) -> {
          throw job.id().equals("a") ? new AssertionError("hint bug")
              : new StackOverflowError("deep hint");
        })
        .build();
    q.add(new Job("a", 0));
    q.add(new Job("s", 0));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:2", q.pending().summary(),
        "the gate threw (AssertionError, StackOverflowError): the items stay gated");
    broken[0] = false;
    q.onEvent(VOLUME_ADD, null, null);
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());

    q.requeueFailed(popNowUnchecked(q), Rejectors.pending("boom"));
    q.requeueFailed(popNowUnchecked(q), Rejectors.pending("boom"));
    q.onEvent(NODE_ADD, null, null);
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary(),
        "the hint threw: counted as QUEUE");
    assertEquals(List.of("a", "s"), ids(q));
  }

  /**
   * A priority function (or comparator) that throws for some item runs inside the heap's sift,
   * where a throw would leave the heap half-changed (an element duplicated, a key indexed but
   * not in the array). It is treated as "equal", so the queue's own sequence decides, and the
   * queue stays whole: every item is popped once, and the item can be added again.
   */
  @Test
  void priorityFunctionThatThrows_ordersAsEqual_andLeavesTheQueueWhole() throws Exception {
    SchedulingQueue<String, Job> q = SchedulingQueue.<String, Job>builder(Job::id).clock(clock)
        .priority(j -> {
          if (j.id().startsWith("bad")) {
            throw new IllegalStateException("priority bug");
          }
          return j.priority();
        })
        .build();
    for (String id : List.of("a", "bad-1", "b", "c", "bad-2", "d")) {
      q.add(new Job(id, id.charAt(0)));
    }
    assertEquals("activeQ:6; backoffQ:0; unschedulable:0", q.pending().summary());
    List<String> popped = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      PoppedItem<String, Job> p = popNow(q);
      popped.add(p.key());
      assertTrue(q.done(p.id()));
    }
    assertEquals(Set.of("a", "bad-1", "b", "c", "bad-2", "d"), Set.copyOf(popped),
        "each item popped once: " + popped);
    assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary());
    q.add(new Job("bad-1", 0));
    assertEquals("bad-1", popNow(q).key(), "the item can be added again");
  }

  @Test
  void popFromBackoff_whenActiveQIsEmpty() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(NODE_ADD, null, null);
    q.requeueFailed(p, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    PoppedItem<String, Job> again = popNow(q); // back-off not over, but activeQ is empty
    assertEquals("a", again.key());
    assertEquals(2, again.attempts());
  }

  @Test
  void popFromBackoffOff_waitsForTheBackoff() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).popFromBackoff(false).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    CompletableFuture<Optional<PoppedItem<String, Job>>> popped = popAsync(q);
    stepSeconds(clock, 1.999);
    assertFalse(popped.isDone());
    stepSeconds(clock, 0.001);
    assertEquals("a", popped.get().orElseThrow().key());
  }

  @Test
  void errorFailures_areNeverPoppedEarly() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    Thread[] popper = new Thread[1];
    CompletableFuture<Optional<PoppedItem<String, Job>>> popped = new CompletableFuture<>();
    popper[0] = new Thread(() -> {
      try {
        popped.complete(q.pop());
      } catch (InterruptedException e) {
        popped.completeExceptionally(e);
      }
    });
    popper[0].start();
    await().until(() -> popper[0].getState() == Thread.State.WAITING);
    assertFalse(popped.isDone());
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    // error at 0 s: 1 s back-off, expiry window [1 s, 2 s) is "still backing off" until 2 s
    stepSeconds(clock, 1);
    assertFalse(popped.isDone());
    stepSeconds(clock, 1);
    assertEquals("a", popped.get().orElseThrow().key());
  }

  @Test
  void backoffDoubles_1_2_4_8_10_10_withWindowAlignment() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 0));
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      PoppedItem<String, Job> p = popNow(q);
      long failedAt = clock.nanoTime();
      q.requeueFailed(p, Rejectors.none());
      long seconds = 0;
      while (!q.pending().summary().startsWith("activeQ:1")) {
        stepSeconds(clock, 1);
        seconds++;
      }
      waits.add((clock.nanoTime() - failedAt) / 1_000_000_000L);
      // failed at a whole second: expiry window = now + backoff, still backing off in it
      assertEquals(seconds, waits.get(i));
    }
    assertEquals(List.of(2L, 3L, 5L, 9L, 11L, 11L), waits); // back-off + 1 window
  }

  @Test
  void backoffDoubles_1_2_4_8_10_10_withoutAlignment() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).alignBackoffToWindow(false)
        .popFromBackoff(false).build();
    q.add(new Job("a", 0));
    List<Double> waits = new ArrayList<>();
    stepSeconds(clock, 0.25); // fail between whole seconds
    for (int i = 0; i < 6; i++) {
      PoppedItem<String, Job> p = popNow(q);
      long failedAt = clock.nanoTime();
      q.requeueFailed(p, Rejectors.none());
      while (!q.pending().summary().startsWith("activeQ:1")) {
        stepSeconds(clock, 0.25);
      }
      waits.add((clock.nanoTime() - failedAt) / 1e9);
    }
    // the flush runs on whole seconds: the first wait (failure at 0.25 s, due at 1.25 s) is
    // rounded up to 2 s; later failures happen at whole seconds, so the waits are exact
    assertEquals(List.of(1.75, 2.0, 4.0, 8.0, 10.0, 10.0), waits);
  }

  @Test
  void backoffPolicy_durations() {
    BackoffPolicy p = new BackoffPolicy(1_000_000_000L, 10_000_000_000L, false, 1, 0);
    long[] expected = {0, 1, 2, 4, 8, 10, 10};
    for (int count = 0; count < expected.length; count++) {
      assertEquals(expected[count] * 1_000_000_000L, p.duration(count));
    }
    assertEquals(10_000_000_000L, p.duration(Integer.MAX_VALUE));
    BackoffPolicy huge = new BackoffPolicy(Long.MAX_VALUE / 4, Long.MAX_VALUE >> 1, false, 1, 0);
    assertEquals(Long.MAX_VALUE >> 1, huge.duration(3));
  }

  @Test
  void backoffNearLongMaxValue_stillOrdersAndFlushes() throws Exception {
    FakeClock late = new FakeClock(Long.MAX_VALUE - 1_500_000_000L);
    SchedulingQueue<String, Job> q = builder(late).popFromBackoff(false).build();
    q.add(new Job("a", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    late.step(Duration.ofSeconds(1));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    late.step(Duration.ofSeconds(1)); // the reading wrapped
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void leftoverFlush_movesAfterFiveMinutesPlusOneSecond_notAtFiveMinutes() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    PoppedItem<String, Job> b = popNow(q);
    stepSeconds(clock, 29);
    q.requeueFailed(a, Rejectors.unschedulable("fit")); // stays from 29 s
    stepSeconds(clock, 1);
    q.requeueFailed(b, Rejectors.unschedulable("fit")); // stays from 30 s
    stepSeconds(clock, 299);                            // 329 s
    assertEquals("activeQ:0; backoffQ:0; unschedulable:2", q.pending().summary());
    stepSeconds(clock, 1); // 330 s: a stayed 301 s, b exactly 300 s
    assertEquals(List.of("a", "b"), ids(q));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:1", q.pending().summary());
    stepSeconds(clock, 30); // 360 s
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void update_keepsOrderAndTimestamp_inActiveQ() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 1));
    clock.stepMillis(10);
    q.add(new Job("b", 1));
    clock.stepMillis(10);
    q.update(new Job("a", 1), new Job("a", 1, 7));
    PoppedItem<String, Job> first = popNow(q);
    assertEquals(new Job("a", 1, 7), first.item());
    assertEquals("b", popNow(q).key());
  }

  @Test
  void update_reSortsWhenThePriorityChanges_andKeepsBackoffPlace() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).popFromBackoff(false).build();
    q.add(new Job("a", 1));
    q.add(new Job("b", 2));
    q.update(new Job("a", 1), new Job("a", 3));
    assertEquals("a", popNow(q).key());
    PoppedItem<String, Job> b = popNow(q);
    q.requeueFailed(b, Rejectors.none());
    stepSeconds(clock, 1);
    q.update(new Job("b", 2), new Job("b", 2, 1));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:0", q.pending().summary());
    stepSeconds(clock, 1);
    assertEquals(new Job("b", 2, 1), popNow(q).item());
  }

  @Test
  void update_inPool_isJudgedByHints_andUpdateOfInFlightIsLoggedForIt() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock)
        .hint("self", ClusterEvent.ITEM_UPDATE, (job, o, n) ->
            ((Job) n).version() >= 2 ? QueueingHint.QUEUE : QueueingHint.SKIP)
        .build();
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    q.requeueFailed(a, Rejectors.pending("self"));
    q.update(new Job("a", 0), new Job("a", 0, 1));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:1", q.pending().summary());
    q.update(new Job("a", 0, 1), new Job("a", 0, 2));
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());

    PoppedItem<String, Job> b = popNow(q);
    assertEquals("b", b.key());
    q.update(new Job("b", 0), new Job("b", 0, 2)); // in flight: logged for b
    q.requeueFailed(b, Rejectors.pending("self"));
    assertEquals(List.of("a", "b"), ids(q)); // b went straight back to activeQ...
    assertEquals(new Job("b", 0, 2), q.pending().items().get(1)); // ...as its latest version
  }

  @Test
  void update_withDifferentKeys_isRejected() {
    SchedulingQueue<String, Job> q = builder(clock).build();
    assertThrows(IllegalArgumentException.class,
        () -> q.update(new Job("a", 0), new Job("b", 0)));
  }

  @Test
  void delete_fromEveryPart_andInFlightItemIsDroppedAtRequeue() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    for (String id : List.of("x", "y", "z", "w")) {
      q.add(new Job(id, 0));
    }
    PoppedItem<String, Job> x = popNow(q);
    PoppedItem<String, Job> y = popNow(q);
    PoppedItem<String, Job> z = popNow(q);
    q.requeueFailed(x, Rejectors.none());
    q.requeueFailed(y, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:1; backoffQ:1; unschedulable:1", q.pending().summary());
    assertTrue(q.delete(new Job("x", 0)));
    assertTrue(q.delete(new Job("y", 0)));
    assertTrue(q.delete(new Job("w", 0)));
    assertTrue(q.delete(new Job("z", 0))); // in flight
    assertFalse(q.delete(new Job("nobody", 0)));
    q.requeueFailed(z, Rejectors.none());
    assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void activate_movesFromPoolAndBackoff_andInFlightRemembersIt() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("p", 0));
    q.add(new Job("b", 0));
    q.add(new Job("f", 0));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    q.requeueFailed(popNow(q), Rejectors.none());
    PoppedItem<String, Job> f = popNow(q);
    assertEquals("activeQ:0; backoffQ:1; unschedulable:1", q.pending().summary());
    q.activate(List.of(new Job("p", 0), new Job("b", 0), new Job("f", 0), new Job("?", 0)));
    assertEquals("activeQ:2; backoffQ:0; unschedulable:0", q.pending().summary());
    q.requeueFailed(f, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:2; backoffQ:1; unschedulable:0", q.pending().summary(),
        "not pooled, but its back-off (1 s for a first rejection) still runs, as in kube");
    clock.step(Duration.ofSeconds(2)); // the expiry's 1 s window has passed
    assertEquals("activeQ:3; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void activate_ofAnItemInFlight_concernsThatItemOnly() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 1));
    q.add(new Job("b", 0));
    PoppedItem<String, Job> a = popNow(q);
    PoppedItem<String, Job> b = popNow(q);
    q.activate(List.of(new Job("a", 0)));
    clock.step(Duration.ofSeconds(5)); // both back-offs would be over
    q.requeueFailed(b, Rejectors.unschedulable("fit"));
    q.requeueFailed(a, Rejectors.unschedulable("fit"));
    assertEquals("activeQ:0; backoffQ:1; unschedulable:1", q.pending().summary());
    assertEquals(List.of("a", "b"), ids(q), "a to back-off, b pooled: no event for it");
    clock.step(Duration.ofSeconds(2));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:1", q.pending().summary());
  }

  @Test
  void pending_listsActiveThenBackoffThenPool_withSummary() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("pool", 9));
    q.add(new Job("backoff", 8));
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    q.requeueFailed(popNow(q), Rejectors.none());
    q.add(new Job("active-low", 1));
    q.add(new Job("active-high", 2));
    Pending<Job> pending = q.pending();
    assertEquals("activeQ:2; backoffQ:1; unschedulable:1", pending.summary());
    assertEquals(List.of("active-high", "active-low", "backoff", "pool"), ids(q));
  }

  @Test
  void doneAndRequeue_areKeyedByTheAttemptId() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> first = popNow(q);
    q.requeueFailed(first, Rejectors.none());
    assertFalse(q.done(first.id())); // that attempt ended with the requeue
    assertThrows(IllegalStateException.class, () -> q.requeueFailed(first, Rejectors.none()));
    stepSeconds(clock, 2);
    PoppedItem<String, Job> second = popNow(q);
    assertTrue(second.id() > first.id());
    assertTrue(q.done(second.id()));
    assertFalse(q.done(second.id()));
    assertEquals("activeQ:0; backoffQ:0; unschedulable:0", q.pending().summary());
  }

  @Test
  void addOfAKnownKey_isAnUpdate() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 0));
    q.add(new Job("a", 0, 1));
    assertEquals("activeQ:1; backoffQ:0; unschedulable:0", q.pending().summary());
    assertEquals(1, popNow(q).item().version());
  }

  @Test
  void closed_popReturnsEmpty_andTimersStop() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).hint("fit", NODE_ADD).build();
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    assertEquals(2, clock.pendingWakeups()); // back-off flush and pool flush
    q.close();
    assertEquals(0, clock.pendingWakeups());
    assertTrue(q.pop().isEmpty());
    q.add(new Job("c", 0)); // ignored
    assertTrue(q.pop().isEmpty());
    q.close(); // idempotent
  }

  @Test
  void idleQueue_schedulesNothing() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    q.add(new Job("a", 0));
    assertEquals(0, clock.pendingWakeups());
    q.requeueFailed(popNow(q), Rejectors.none());
    assertEquals(1, clock.pendingWakeups());
    stepSeconds(clock, 2);
    assertEquals(0, clock.pendingWakeups()); // backoffQ empty again
  }

  @Test
  void popBlockedAtClose_returnsEmpty() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    CompletableFuture<Optional<PoppedItem<String, Job>>> popped = popAsync(q);
    q.close();
    assertTrue(popped.get().isEmpty());
  }

  @Test
  void blockedPop_isWokenByAdd() throws Exception {
    SchedulingQueue<String, Job> q = builder(clock).build();
    CompletableFuture<Optional<PoppedItem<String, Job>>> popped = popAsync(q);
    q.add(new Job("a", 0));
    assertEquals("a", popped.get().orElseThrow().key());
  }

  @Test
  void nullArguments_failNamingTheArgument() {
    SchedulingQueue<String, Job> q = builder(clock).build();
    assertNpe("item", () -> q.add(null));
    assertNpe("popped", () -> q.requeueFailed(null, Rejectors.none()));
    assertNpe("event", () -> q.onEvent(null, null, null));
    assertNpe("preCheck", () -> q.onEvent(NODE_UPDATE, null, null, null));
    assertNpe("oldItem", () -> q.update(null, new Job("a", 0)));
    assertNpe("items", () -> q.activate(null));
    assertNpe("keyFunction", () -> SchedulingQueue.builder(null));
    assertNpe("clock", () -> builder(clock).clock(null));
    assertThrows(IllegalArgumentException.class, () -> builder(clock).maxInFlightEvents(0));
    assertThrows(IllegalArgumentException.class,
        () -> builder(clock).initialBackoff(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class,
        () -> builder(clock).maxStayInPool(Duration.ZERO));
    assertThrows(IllegalArgumentException.class,
        () -> builder(clock).initialBackoff(Duration.ofSeconds(20)).build());
    assertThrows(IllegalArgumentException.class, () -> builder(clock)
        .gate(Gate.of("g", j -> true)).gate(Gate.of("g", j -> true)));
  }

  private static void assertNpe(String name, org.junit.jupiter.api.function.Executable e) {
    NullPointerException npe = assertThrows(NullPointerException.class, e);
    assertTrue(npe.getMessage().contains(name), npe.getMessage());
  }

  private static PoppedItem<String, Job> popNowUnchecked(SchedulingQueue<String, Job> q) {
    try {
      return popNow(q);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  static CompletableFuture<Optional<PoppedItem<String, Job>>> popAsync(
      SchedulingQueue<String, Job> q) {
    CompletableFuture<Optional<PoppedItem<String, Job>>> f = new CompletableFuture<>();
    Thread t = new Thread(() -> {
      try {
        f.complete(q.pop());
      } catch (InterruptedException e) {
        f.completeExceptionally(e);
      }
    });
    t.setDaemon(true);
    t.start();
    return f;
  }
}
