package dev.workqueue.scheduling;

import static dev.workqueue.scheduling.Fixtures.NODE_ADD;
import static dev.workqueue.scheduling.Fixtures.VOLUME_ADD;
import static dev.workqueue.scheduling.Fixtures.builder;
import static dev.workqueue.scheduling.Fixtures.popNow;
import static dev.workqueue.scheduling.Fixtures.stepSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.Fixtures.Job;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** lookup, counts, inFlight, activeItems and PoppedItem.lastRejectors. */
@Timeout(10)
// The status records are generic, so the class literals that status() takes are raw.
@SuppressWarnings("unchecked")
class SchedulingQueueLookupTest {
  private static final long SECOND = 1_000_000_000L;
  private final FakeClock clock = new FakeClock();
  private boolean gateOpen = true;

  /** Items whose id starts with "g" wait for the quota gate; "fit" and "bind" are hints. */
  private SchedulingQueue<String, Job> queue() {
    return builder(clock)
        .hint("fit", NODE_ADD, (j, o, n) -> QueueingHint.SKIP)
        .hint("bind", VOLUME_ADD)
        .gate(Gate.of("quota", j -> gateOpen || !j.id().startsWith("g"), VOLUME_ADD))
        .build();
  }

  private static <S extends ItemStatus<String, Job>> S status(SchedulingQueue<String, Job> q,
      String key, Class<S> type) {
    ItemStatus<String, Job> s = q.lookup(key).orElseThrow(() -> new AssertionError(key));
    return type.cast(assertInstanceOf(type, s));
  }

  @Test
  void lookup_findsEveryPart_withWhatThatPartKnows() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    long t0 = clock.nanoTime();
    q.add(new Job("err", 5));
    q.add(new Job("rej", 4));
    q.add(new Job("fly", 3));
    q.add(new Job("act", 0));
    gateOpen = false;
    q.add(new Job("g1", 0));
    q.requeueFailed(popNow(q), Rejectors.none()); // err: error at t0, 1 s back-off
    stepSeconds(clock, 0.5);
    q.requeueFailed(popNow(q), new Rejectors(Set.of("fit"), Set.of("bind"))); // rej: pooled
    PoppedItem<String, Job> fly = popNow(q);

    ItemStatus.Active<String, Job> act = status(q, "act", ItemStatus.Active.class);
    assertEquals(ItemStatus.Part.ACTIVE, act.part());
    assertEquals(new Job("act", 0), act.item());
    assertEquals(0, act.state().attempts());
    assertEquals(t0, act.state().timestamp());

    ItemStatus.BackingOff<String, Job> err = status(q, "err", ItemStatus.BackingOff.class);
    assertEquals(ItemStatus.Part.BACKOFF, err.part());
    assertTrue(err.errored());
    assertEquals(1, err.state().consecutiveErrors());
    assertEquals(Rejectors.none(), err.state().lastRejectors());
    // expiry t0 + 1 s, aligned to its 1 s window [1 s, 2 s): over at 2 s
    assertEquals(t0 + 2 * SECOND, err.expiry());

    ItemStatus.Unschedulable<String, Job> rej = status(q, "rej", ItemStatus.Unschedulable.class);
    assertEquals(new Rejectors(Set.of("fit"), Set.of("bind")), rej.rejectors());
    assertEquals(1, rej.state().unschedulableCount());
    assertEquals(t0 + SECOND / 2, rej.state().timestamp(), "refreshed by the failure");

    ItemStatus.Gated<String, Job> g1 = status(q, "g1", ItemStatus.Gated.class);
    assertEquals(ItemStatus.Part.GATED, g1.part());
    assertEquals("quota", g1.gate());

    ItemStatus.InFlight<String, Job> f = status(q, "fly", ItemStatus.InFlight.class);
    assertEquals(fly.id(), f.attemptId());
    assertEquals(1, f.state().attempts());
    assertFalse(f.deleted());
    q.delete(new Job("fly", 3));
    assertTrue(status(q, "fly", ItemStatus.InFlight.class).deleted(),
        "still in flight until its requeueFailed drops it");

    assertEquals(Optional.empty(), q.lookup("nobody"));
    q.done(fly.id());
    assertEquals(Optional.empty(), q.lookup("fly"));
  }

  @Test
  void lookup_isASnapshot_thatLaterMovesDoNotChange() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("a", 0));
    ItemStatus<String, Job> before = q.lookup("a").orElseThrow();
    PoppedItem<String, Job> p = popNow(q);
    q.update(new Job("a", 0), new Job("a", 0, 1));
    q.requeueFailed(p, Rejectors.unschedulable("fit"));
    assertEquals(ItemStatus.Part.ACTIVE, before.part());
    assertEquals(new Job("a", 0), before.item());
    assertEquals(0, before.state().attempts());
    ItemStatus<String, Job> after = q.lookup("a").orElseThrow();
    assertEquals(ItemStatus.Part.UNSCHEDULABLE, after.part());
    assertEquals(new Job("a", 0, 1), after.item());
  }

  @Test
  void backingOff_withARejection_isNotErrored_andItsExpiryIsWhenTheFlushMovesIt()
      throws Exception {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> p = popNow(q);
    q.onEvent(VOLUME_ADD, null, null); // bind's hint (no function) says QUEUE
    stepSeconds(clock, 0.25);
    q.requeueFailed(p, Rejectors.unschedulable("bind")); // 1 s from 0.25 s: window [1 s, 2 s)
    ItemStatus.BackingOff<String, Job> b = status(q, "a", ItemStatus.BackingOff.class);
    assertFalse(b.errored());
    assertEquals(2 * SECOND, b.expiry());
    clock.step(Duration.ofNanos(b.expiry() - clock.nanoTime() - 1));
    assertEquals(ItemStatus.Part.BACKOFF, q.lookup("a").orElseThrow().part());
    clock.step(Duration.ofNanos(1));
    assertEquals(ItemStatus.Part.ACTIVE, q.lookup("a").orElseThrow().part());
  }

  @Test
  void counts_separateGatedAndInFlight_andAgreeWithTheSummary() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    assertEquals(new QueueCounts(0, 0, 0, 0, 0), q.counts());
    q.add(new Job("a", 0));
    q.add(new Job("b", 0));
    q.add(new Job("c", 0));
    q.add(new Job("d", 0));
    gateOpen = false;
    q.add(new Job("g1", 0));
    q.requeueFailed(popNow(q), Rejectors.none());
    q.requeueFailed(popNow(q), Rejectors.unschedulable("fit"));
    popNow(q);
    QueueCounts c = q.counts();
    assertEquals(new QueueCounts(1, 1, 1, 1, 1), c);
    assertEquals(4, c.waiting());
    assertEquals(1, c.of(ItemStatus.Part.GATED));
    assertEquals("activeQ:1; backoffQ:1; unschedulable:2", q.pending().summary());
  }

  @Test
  void inFlight_listsTheAttemptsInPopOrder() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("a", 2));
    q.add(new Job("b", 1));
    q.add(new Job("c", 0));
    PoppedItem<String, Job> a = popNow(q);
    PoppedItem<String, Job> b = popNow(q);
    List<ItemStatus.InFlight<String, Job>> flying = q.inFlight();
    assertEquals(List.of("a", "b"), flying.stream().map(ItemStatus::key).toList());
    assertEquals(List.of(a.id(), b.id()),
        flying.stream().map(ItemStatus.InFlight::attemptId).toList());
    assertThrows(UnsupportedOperationException.class, () -> flying.remove(0));
    q.done(a.id());
    assertEquals(List.of("b"), q.inFlight().stream().map(ItemStatus::key).toList());
  }

  @Test
  void activeItems_areHeadFirst_inPopOrder() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("low", 0));
    clock.stepMillis(1);
    q.add(new Job("high", 9));
    q.add(new Job("mid", 5));
    List<ItemSnapshot<String, Job>> items = q.activeItems();
    assertEquals(List.of("high", "mid", "low"), items.stream().map(ItemSnapshot::key).toList());
    assertThrows(UnsupportedOperationException.class, () -> items.remove(0));
    assertEquals("high", popNow(q).key());
  }

  @Test
  void poppedItem_carriesTheRejectorsOfTheLastFailure() throws Exception {
    SchedulingQueue<String, Job> q = queue();
    q.add(new Job("a", 0));
    PoppedItem<String, Job> first = popNow(q);
    assertEquals(Rejectors.none(), first.lastRejectors());
    q.requeueFailed(first, new Rejectors(Set.of("fit"), Set.of("bind")));
    q.activate(List.of(new Job("a", 0)));
    PoppedItem<String, Job> second = popNow(q);
    assertEquals(new Rejectors(Set.of("fit"), Set.of("bind")), second.lastRejectors());
    assertEquals(second.lastRejectors(),
        status(q, "a", ItemStatus.InFlight.class).state().lastRejectors());
    q.requeueFailed(second, Rejectors.none());
    stepSeconds(clock, 2);
    assertEquals(Rejectors.none(), popNow(q).lastRejectors(), "an error has no rejector");
  }

  @Test
  void lookupOfNull_failsNamingTheKey() {
    SchedulingQueue<String, Job> q = queue();
    NullPointerException e = assertThrows(NullPointerException.class, () -> q.lookup(null));
    assertTrue(e.getMessage().contains("key"), e.getMessage());
  }
}
