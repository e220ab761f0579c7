package dev.workqueue.trace;

import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.DelayingQueue;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueBuilder;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Which adds a hand-out covers: merged adds, adds while processing (the next round's), delayed
 * adds from when they fall due, cancelled and discarded ones (none); the bound on carried
 * contexts; a tracer that throws. The concurrent case is {@code TrailsStressTest}.
 */
class QueueTracerTest {
  private final FakeClock clock = new FakeClock();

  /** Carries the context the test sets before each add; records each hand-out. */
  static final class Recorder implements QueueTracer<String> {
    final AtomicReference<Object> next = new AtomicReference<>();
    final List<Duration> delays = new ArrayList<>();
    final List<HandOut> handOuts = new ArrayList<>();
    int max = DEFAULT_MAX_CARRIED;

    @Override
    public Object onAdd(String item, Duration delay) {
      delays.add(delay);
      return next.get();
    }

    @Override
    public void onHandOut(String item, HandOut handOut) {
      handOuts.add(handOut);
    }

    @Override
    public int maxCarried() {
      return max;
    }

    HandOut last() {
      return handOuts.get(handOuts.size() - 1);
    }
  }

  private final Recorder tracer = new Recorder();

  private WorkQueueBuilder<String> builder() {
    return WorkQueue.<String>builder().clock(clock).tracer(tracer);
  }

  private void add(WorkQueue<String> q, String item, Object context) {
    tracer.next.set(context);
    q.add(item);
  }

  private static List<Object> contexts(HandOut h) {
    List<Object> out = new ArrayList<>();
    h.carried().forEach(c -> out.add(c.context()));
    return out;
  }

  private String take(WorkQueue<String> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow();
  }

  @Test
  void mergedAdds_areCarriedByOneHandOut_inOrder() throws Exception {
    WorkQueue<String> q = builder().build();
    add(q, "a", "e1");
    clock.stepMillis(5);
    add(q, "a", "e2");
    add(q, "b", "x");
    clock.stepMillis(3);
    assertEquals("a", take(q));
    HandOut h = tracer.last();
    assertEquals(List.of("e1", "e2"), contexts(h));
    assertEquals(0, h.dropped());
    assertEquals(ofMillis(8), h.carried().get(0).age());
    assertEquals(ofMillis(3), h.carried().get(1).age());
    assertEquals(ofMillis(8), h.readyWait(), "ready since its first add");
    assertEquals("b", take(q));
    assertEquals(List.of("x"), contexts(tracer.last()));
  }

  @Test
  void addWhileProcessing_belongsToTheNextRound() throws Exception {
    WorkQueue<String> q = builder().build();
    add(q, "a", "first");
    assertEquals("a", take(q));
    add(q, "a", "during");
    assertEquals(List.of("first"), contexts(tracer.last()));
    q.done("a");
    assertEquals("a", take(q));
    assertEquals(List.of("during"), contexts(tracer.last()));
    q.done("a");
  }

  @Test
  void addsWithoutContext_areNotCarried() throws Exception {
    WorkQueue<String> q = builder().build();
    add(q, "a", null);
    add(q, "a", "c");
    take(q);
    assertEquals(List.of("c"), contexts(tracer.last()));
    assertEquals(1, tracer.last().adds());
  }

  @Test
  void moreAddsThanTheBound_carryTheFirstAndCountTheRest() throws Exception {
    WorkQueue<String> q = builder().build();
    for (int i = 0; i < 11; i++) {
      add(q, "a", "c" + i);
    }
    take(q);
    HandOut h = tracer.last();
    assertEquals(List.of("c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"), contexts(h));
    assertEquals(3, h.dropped());
    assertEquals(11, h.adds());
  }

  @Test
  void delayedAdd_isCarriedWhenDue_notBefore() throws Exception {
    RateLimitingQueue<String> q = builder().buildRateLimiting(
        RateLimiters.exponential(ofMillis(10), Duration.ofSeconds(1)));
    tracer.next.set("retry");
    q.addRateLimited("a");
    assertEquals(ofMillis(10), tracer.delays.get(0));
    add(q, "a", "event"); // client-go: the delayed add stays and fires later
    assertEquals("a", take(q));
    assertEquals(List.of("event"), contexts(tracer.last()));
    q.done("a");
    clock.stepMillis(10);
    assertEquals("a", take(q));
    HandOut h = tracer.last();
    assertEquals(List.of("retry"), contexts(h));
    assertEquals(ofMillis(10), h.carried().get(0).delay());
    assertEquals(ofMillis(10), h.carried().get(0).age());
  }

  @Test
  void delayedAdd_dueWhileProcessing_belongsToTheNextRound() throws Exception {
    DelayingQueue<String> q = builder().buildDelaying();
    add(q, "a", "first");
    assertEquals("a", take(q));
    tracer.next.set("later");
    q.addAfter("a", ofMillis(5));
    clock.stepMillis(5);
    q.done("a");
    assertEquals("a", take(q));
    assertEquals(List.of("later"), contexts(tracer.last()));
  }

  @Test
  void delayedAdds_mergedInTheWaitingRoom_travelTogether() throws Exception {
    DelayingQueue<String> q = builder().buildDelaying();
    tracer.next.set("d1");
    q.addAfter("a", ofMillis(20));
    tracer.next.set("d2");
    q.addAfter("a", ofMillis(5)); // the earlier ready time wins; both adds are behind it
    clock.stepMillis(5);
    assertEquals("a", take(q));
    assertEquals(List.of("d1", "d2"), contexts(tracer.last()));
  }

  @Test
  void cancelledDelayedAdd_isCarriedByNoRound() throws Exception {
    DelayingQueue<String> q = builder().buildDelaying();
    tracer.next.set("cancelled");
    q.addAfter("a", ofMillis(5));
    assertTrue(q.cancel("a"));
    add(q, "a", "kept");
    clock.stepMillis(5);
    assertEquals("a", take(q));
    assertEquals(List.of("kept"), contexts(tracer.last()));
  }

  @Test
  void supersedingAdd_takesTheWaitingAddsContextAlong() throws Exception {
    DelayingQueue<String> q = builder().addSupersedesDelayed(true).buildDelaying();
    tracer.next.set("waiting");
    q.addAfter("a", ofMillis(5));
    add(q, "a", "now");
    assertEquals("a", take(q));
    assertEquals(List.of("waiting", "now"), contexts(tracer.last()));
  }

  @Test
  void priorityQueue_delayedAddOfReadyItem_isMergedIntoItsRound() throws Exception {
    PriorityWorkQueue<String> q = builder().buildPriority(RateLimiters.defaultItemBasedRateLimiter());
    add(q, "a", "ready");
    tracer.next.set("raised");
    q.add("a", AddOptions.ofPriority(5).withAfter(ofMillis(10)));
    assertEquals("a", q.pollWithPriority(Duration.ZERO).orElseThrow().item());
    assertEquals(List.of("ready", "raised"), contexts(tracer.last()));
  }

  @Test
  void fairQueue_carriesAdds() throws Exception {
    WorkQueue<String> q = builder().fairBy(s -> s.substring(0, 1)).build();
    add(q, "a1", "x");
    add(q, "b1", "y");
    add(q, "a1", "z");
    assertEquals("a1", take(q));
    assertEquals(List.of("x", "z"), contexts(tracer.last()));
  }

  @Test
  void throwingTracer_costsTheTraceOnly() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).tracer(new QueueTracer<>() {
      @Override
      public Object onAdd(String item, Duration delay) {
        throw new IllegalStateException("boom");
      }

      @Override
      public void onHandOut(String item, HandOut handOut) {
        throw new IllegalStateException("boom");
      }
    }).build();
    q.add("a");
    assertEquals("a", take(q));
    q.done("a");
    assertEquals(0, q.size());
  }

  @Test
  void aTracerThrowingAnError_costsTheTraceOnly_theItemIsHandedOutAndEnds() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().clock(clock).tracer(new QueueTracer<>() {
      @Override
      public Object onAdd(String item, Duration delay) {
        throw new AssertionError("an Error from the tracer's onAdd");
      }

      @Override
      public void onHandOut(String item, HandOut handOut) {
        throw new NoClassDefFoundError("an Error from the tracer's onHandOut");
      }
    }).build();
    q.add("a");
    assertEquals("a", take(q), "the item is handed out, not lost with the Error");
    q.add("a"); // held until done
    q.done("a");
    assertEquals("a", take(q));
    q.done("a");
    assertEquals(0, q.size());
  }

  @Test
  void tracer_null_isRejectedByName() {
    NullPointerException e =
        assertThrows(NullPointerException.class, () -> WorkQueue.<String>builder().tracer(null));
    assertTrue(e.getMessage().contains("tracer"), e.getMessage());
  }

  @Test
  void handOut_checksItsArguments() {
    assertThrows(IllegalArgumentException.class,
        () -> new HandOut(List.of(), -1, Duration.ZERO));
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> new CarriedAdd(null, Duration.ZERO, Duration.ZERO));
    assertTrue(e.getMessage().contains("context"), e.getMessage());
  }
}
