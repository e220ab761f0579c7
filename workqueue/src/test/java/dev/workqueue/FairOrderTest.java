package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fair ready order ({@link WorkQueueBuilder#fairBy}): round-robin across the values of a
 * dimension the caller extracts from each item (a tenant, a namespace), first-in first-out
 * within one value, so a value with 10,000 ready keys cannot starve one with 3.
 *
 * <p>The model these tests pin down: the queue keeps a line of <em>groups</em>, one per value
 * with ready items, each group a FIFO of its items. A take serves the group at the front of the
 * line and sends it to the back if it still has items; a group that empties leaves the line,
 * and a value whose first item becomes ready (added, due, or back at {@code done}) joins the
 * line at the back as a new group.
 *
 * <p>Decided here: the dimension is computed by the call that brings the item ({@code add},
 * {@code addAfter}, ...), so a dimension function that throws fails that call with its own
 * exception, and a dimension value of {@code null} fails it with a
 * {@link NullPointerException} whose message names {@code dimension}; in both cases the item
 * is not taken in and the queue goes on as if the call had not been made.
 *
 * <p>What fair queues share with every kind (de-duplication, one more round, shutdown, delays)
 * is in {@link QueueContractTest} ({@link QueueKind#FAIR}).
 */
class FairOrderTest {
  /** The tenant of a key {@code "a/1"} is {@code "a"}. */
  private static final Function<String, String> TENANT = k -> k.substring(0, 1);

  private final FakeClock clock = new FakeClock();

  private RateLimitingQueue<String> fair(Function<? super String, ?> dimension) {
    return WorkQueue.<String>builder().clock(clock).fairBy(dimension)
        .buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1)));
  }

  private RateLimitingQueue<String> fair() {
    return fair(TENANT);
  }

  private static String take(WorkQueue<String> q) throws InterruptedException {
    String item = q.poll(Duration.ZERO).orElseThrow(() -> new AssertionError("queue was empty"));
    q.done(item);
    return item;
  }

  private static List<String> drainNow(WorkQueue<String> q) throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (Optional<String> n = q.poll(Duration.ZERO); n.isPresent(); n = q.poll(Duration.ZERO)) {
      out.add(n.get());
      q.done(n.get());
    }
    return out;
  }

  private static void addAll(WorkQueue<String> q, String... items) {
    for (String item : items) {
      q.add(item);
    }
  }

  @Test
  void aValueWithThreeReadyKeys_isNotStarvedByOneWithTenThousand() throws Exception {
    RateLimitingQueue<String> q = fair();
    for (int i = 0; i < 10_000; i++) {
      q.add("a/" + i);
    }
    addAll(q, "b/0", "b/1", "b/2");
    List<String> first = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      first.add(take(q));
    }
    assertTrue(first.containsAll(List.of("b/0", "b/1", "b/2")),
        "b's three keys come out within the first 6 takes, came " + first);
    assertEquals(10_000 - 3, drainNow(q).size(), "and a's keys after them, none lost");
  }

  @Test
  void readyOrder_isRoundRobinAcrossValues_andFifoWithinOne() throws Exception {
    RateLimitingQueue<String> q = fair();
    addAll(q, "a/1", "a/2", "a/3", "b/1", "b/2", "b/3", "c/1");
    assertEquals(List.of("a/1", "b/1", "c/1", "a/2", "b/2", "a/3", "b/3"), drainNow(q));
  }

  static Stream<Arguments> builds() {
    Function<WorkQueueBuilder<String>, WorkQueue<String>> build = WorkQueueBuilder::build;
    Function<WorkQueueBuilder<String>, WorkQueue<String>> delaying =
        WorkQueueBuilder::buildDelaying;
    Function<WorkQueueBuilder<String>, WorkQueue<String>> rateLimiting = b ->
        b.buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1)));
    return Stream.of(Arguments.of("build", build), Arguments.of("buildDelaying", delaying),
        Arguments.of("buildRateLimiting", rateLimiting));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("builds")
  void fairBy_appliesToEveryBuildButPriority(String name,
      Function<WorkQueueBuilder<String>, WorkQueue<String>> build) throws Exception {
    WorkQueue<String> q = build.apply(WorkQueue.<String>builder().clock(clock).fairBy(TENANT));
    addAll(q, "a/1", "a/2", "b/1");
    assertEquals(List.of("a/1", "b/1", "a/2"), drainNow(q));
  }

  @Test
  void fairBy_withBuildPriority_isRefused() {
    WorkQueueBuilder<String> b = WorkQueue.<String>builder().clock(clock).fairBy(TENANT);
    assertThrows(IllegalStateException.class, () -> b.buildPriority(
        RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1))));
  }

  @Test
  void fairBy_null_isRejectedNamingTheArgument() {
    NullPointerException e = assertThrows(NullPointerException.class,
        () -> WorkQueue.<String>builder().fairBy(null));
    assertEquals("dimension must not be null", e.getMessage());
  }

  @Test
  void aValueWhoseGroupEmpties_leavesTheLine_andRejoinsAtTheBack() throws Exception {
    RateLimitingQueue<String> q = fair();
    addAll(q, "a/1", "b/1", "b/2", "c/1", "c/2"); // line: a b c
    assertEquals("a/1", take(q)); // a empties and leaves: b c
    assertEquals("b/1", take(q)); // b to the back: c b
    q.add("a/2"); // a joins at the back: c b a (not back in its old place ahead of b)
    assertEquals(List.of("c/1", "b/2", "a/2", "c/2"), drainNow(q));
  }

  @Test
  void itemReAddedWhileProcessing_rejoinsItsValueAtDone() throws Exception {
    RateLimitingQueue<String> q = fair();
    addAll(q, "a/1", "b/1", "b/2");
    String a = q.poll(Duration.ZERO).orElseThrow();
    q.add(a); // a's group is empty while a/1 is processing
    assertEquals("b/1", take(q));
    q.done(a); // a/1 is ready again: group a joins at the back, behind b
    assertEquals(List.of("b/2", "a/1"), drainNow(q));
    assertEquals(List.of(), drainNow(q), "exactly one more round");
  }

  @Test
  void delayedItem_joinsItsValueWhenDue() throws Exception {
    RateLimitingQueue<String> q = fair();
    q.addAfter("b/1", Duration.ofSeconds(1));
    addAll(q, "a/1", "a/2", "a/3");
    clock.step(Duration.ofSeconds(1));
    assertEquals(List.of("a/1", "b/1", "a/2", "a/3"), drainNow(q));
  }

  @Test
  void dimensionThatThrows_failsTheAddWithItsException_andTheQueueKeepsWorking()
      throws Exception {
    IllegalStateException bug = new IllegalStateException("dimension bug");
    RateLimitingQueue<String> q = fair(k -> {
      if (k.startsWith("x")) {
        throw bug;
      }
      return k.substring(0, 1);
    });
    q.add("a/1");
    assertSame(bug, assertThrows(IllegalStateException.class, () -> q.add("x/1")));
    assertEquals(1, q.size(), "x/1 was not taken in");
    assertSame(bug, assertThrows(IllegalStateException.class, () -> q.add("x/1")),
        "x/1 was left neither dirty nor half-added: the next add fails the same way");
    assertSame(bug, assertThrows(IllegalStateException.class,
        () -> q.addAfter("x/1", Duration.ofSeconds(1))), "a delayed add fails at its call");
    q.add("b/1");
    assertEquals(List.of("a/1", "b/1"), drainNow(q));
    assertEquals(0, q.waitingCount());
    clock.step(Duration.ofSeconds(1));
    q.add("a/2");
    assertEquals(List.of("a/2"), drainNow(q));
  }

  @Test
  void nullDimensionValue_isRejectedWithNpeNamingDimension_andTheQueueKeepsWorking()
      throws Exception {
    RateLimitingQueue<String> q = fair(k -> k.startsWith("n") ? null : k.substring(0, 1));
    q.add("a/1");
    NullPointerException e = assertThrows(NullPointerException.class, () -> q.add("n/1"));
    assertTrue(e.getMessage() != null && e.getMessage().contains("dimension"),
        "the message names the dimension: " + e.getMessage());
    assertThrows(NullPointerException.class, () -> q.addAfter("n/1", Duration.ofSeconds(1)));
    assertEquals(1, q.size());
    assertEquals(0, q.waitingCount());
    q.add("b/1");
    assertEquals(List.of("a/1", "b/1"), drainNow(q));
  }
}
