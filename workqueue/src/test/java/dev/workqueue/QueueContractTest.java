package dev.workqueue;

import static dev.workqueue.metrics.MetricsProvider.ADDS;
import static dev.workqueue.metrics.MetricsProvider.DEPTH;
import static dev.workqueue.metrics.MetricsProvider.RETRIES;
import static dev.workqueue.metrics.MetricsProvider.WORK_DURATION;
import static java.time.Duration.ofHours;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.workqueue.QueueThreads.Running;
import dev.workqueue.clock.Cancellable;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.testsupport.StressScale;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract every queue kind keeps ({@code SPEC-workqueue.md} §1-3, §8, §9), run against
 * each {@link QueueKind}: de-duplication, one consumer per item, one more round for adds while
 * processing, FIFO within a priority and a fairness group, {@code done} out of turn, sizes,
 * takes (blocking, timed, interrupted, {@code pollResult}), shutdown and drain, null arguments,
 * and, for the kinds that delay, {@code addAfter}, {@code cancel}, {@code reschedule} and the
 * waiting room. The kinds' own test classes keep only what is specific to a kind (priority
 * order and aging, supersede and client-go's add-while-waiting rule, the rate limiter's calls).
 *
 * <p>The sections marked "SPEC §9" hold promises that the queues of today break, each as a
 * reproduction named by the behaviour it expects: a timed take says race-free whether it timed
 * out or the queue is shut down ({@link WorkQueue#pollResult}); hooks that throw (metrics,
 * {@link Clock#schedule}, a caller's executor) are swallowed and strand no key; many items
 * falling due together are released in bounded batches; an unnamed queue arms no timer while
 * a consumer waits; a consumer on a {@link FakeClock} parks instead of spinning; an item whose
 * {@code equals} throws harms no other item. {@link QueueKind#FAIR} and {@code pollResult} need
 * the API that comes with the engine rewrite.
 *
 * <p>Keys are {@code "k/..."}, one fairness group for {@link QueueKind#FAIR}. Time is a
 * {@link FakeClock}; only what is truly asynchronous (a thread parking) is awaited, with
 * Awaitility. Calls that must not block run under a preemptive 10 s guard, so a bug fails the
 * test instead of hanging the build.
 */
class QueueContractTest {
  private static final String A = "k/a";
  private static final String B = "k/b";
  private static final String C = "k/c";
  private static final String D = "k/d";
  private static final Duration GUARD = ofSeconds(10);

  private final FakeClock clock = new FakeClock();
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final QueueThreads threads = new QueueThreads();
  private final List<WorkQueue<?>> queues = new ArrayList<>();

  @AfterEach
  void stopEverything() throws InterruptedException {
    for (WorkQueue<?> q : queues) {
      q.shutDown();
    }
    threads.close();
  }

  /** Builds {@code kind}, remembered for shutdown after the test. */
  private WorkQueue<String> queue(QueueKind kind) {
    return remember(kind.build(clock));
  }

  private WorkQueue<String> named(QueueKind kind) {
    return remember(kind.build(clock, "q", metrics));
  }

  private DelayingQueue<String> delaying(QueueKind kind) {
    return remember(kind.delaying(clock));
  }

  private DelayingQueue<String> delayingNamed(QueueKind kind) {
    return remember(kind.delaying(clock, "q", metrics));
  }

  private <Q extends WorkQueue<?>> Q remember(Q q) {
    queues.add(q);
    return q;
  }

  private static <T> T take(WorkQueue<T> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow(() -> new AssertionError("queue was empty"));
  }

  /** Takes and finishes everything queued now, in order. */
  private static <T> List<T> drainNow(WorkQueue<T> q) throws InterruptedException {
    List<T> out = new ArrayList<>();
    for (Optional<T> next = q.poll(Duration.ZERO); next.isPresent();
        next = q.poll(Duration.ZERO)) {
      out.add(next.get());
      q.done(next.get());
    }
    return out;
  }

  private static <R> R result(Running<R> r) throws Exception {
    return r.result().get(10, SECONDS);
  }

  /** The exception a call running on its own thread ended with. */
  private static Throwable failure(Running<?> r) throws Exception {
    ExecutionException e = assertThrows(ExecutionException.class, () -> result(r));
    return e.getCause();
  }

  // ---- de-duplication, one consumer per item, one more round ----

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void add_ofQueuedItem_isDeduplicated(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    q.add(A);
    assertEquals(2, q.size());
    assertEquals(A, take(q));
    assertEquals(B, take(q));
    assertEquals(Optional.empty(), q.poll(Duration.ZERO));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void readyItems_comeOutInFirstDirtyOrder_withinOnePriorityAndOneGroup(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    q.add(C);
    q.add(A); // already queued: keeps its place
    assertEquals(List.of(A, B, C), List.of(take(q), take(q), take(q)));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void reAddDuringProcessing_comesBackOnceAtTheTailAfterDone(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    assertEquals(A, take(q));
    q.add(A);
    q.add(A);
    q.add(A);
    assertEquals(1, q.size(), "a is not queued while processing");
    assertEquals(B, take(q));
    assertEquals(Optional.empty(), q.poll(Duration.ZERO), "a is never handed out twice at once");
    q.add(C);
    q.done(A);
    q.add(D);
    assertEquals(List.of(C, A, D), drainNow(q),
        "a goes to the tail at done: behind c, added before, ahead of d, added after");
    assertEquals(Optional.empty(), q.poll(Duration.ZERO), "exactly one more round");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void anItem_isNeverHandedToTwoConsumersAtOnce_andNoAddIsLost(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = queue(kind);
    int keys = 4;
    int adds = 4_000;
    AtomicLong sequence = new AtomicLong();
    Map<String, Long> lastAdd = new ConcurrentHashMap<>();
    Map<String, Long> lastStart = new ConcurrentHashMap<>();
    Set<String> busy = ConcurrentHashMap.newKeySet();
    AtomicInteger twice = new AtomicInteger();
    List<Running<Integer>> consumers = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      consumers.add(threads.start("consumer-" + c, () -> {
        int taken = 0;
        for (Optional<String> next = q.get(); next.isPresent(); next = q.get()) {
          String key = next.get();
          lastStart.put(key, sequence.incrementAndGet());
          if (!busy.add(key)) {
            twice.incrementAndGet();
          }
          Thread.yield();
          busy.remove(key);
          q.done(key);
          taken++;
        }
        return taken;
      }));
    }
    for (int i = 0; i < adds; i++) {
      String key = "k/" + (i % keys);
      lastAdd.put(key, sequence.incrementAndGet());
      q.add(key);
    }
    Running<Void> drain = threads.start("drain", () -> {
      q.shutDownWithDrain();
      return null;
    });
    result(drain);
    for (Running<Integer> c : consumers) {
      result(c);
    }
    assertEquals(0, twice.get(), "times an item was handed to a second consumer");
    for (int k = 0; k < keys; k++) {
      String key = "k/" + k;
      assertTrue(lastStart.get(key) > lastAdd.get(key), key + ": its last add was not worked off");
    }
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void unpairedDone_isIgnored_neverQueuesADuplicate_norDrivesTheDepthNegative(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = named(kind);
    q.done("k/never-seen");
    assertEquals(0, q.size());
    assertEquals(0.0, metrics.value("q", DEPTH));

    q.add(A);
    q.done(A); // queued, not processing: ignored, stays queued once
    assertEquals(1, q.size());
    assertEquals(A, take(q));
    q.done(A);
    q.done(A); // second done: ignored
    assertEquals(0, q.size());
    assertEquals(Optional.empty(), q.poll(Duration.ZERO));
    assertEquals(0.0, metrics.value("q", DEPTH));
    assertEquals(1, metrics.observations("q", WORK_DURATION).size());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void size_countsQueuedItemsOnly_notProcessingNorWaiting(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    assertEquals(0, q.size());
    q.add(A);
    q.add(B);
    assertEquals(2, q.size());
    assertEquals(A, take(q));
    assertEquals(1, q.size());
    q.add(A); // processing: comes back at done
    assertEquals(1, q.size());
    if (kind.delays()) {
      ((DelayingQueue<String>) q).addAfter(C, ofSeconds(1));
      assertEquals(1, q.size(), "a waiting item is not counted");
      clock.step(ofSeconds(1));
      assertEquals(2, q.size(), "until it is due");
    }
    q.done(A);
    assertEquals(kind.delays() ? 3 : 2, q.size());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void poppedItem_isGarbageCollectableAfterDone(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    String item = new String("k/collectable"); // a fresh instance, referenced by the queue only
    WeakReference<String> ref = new WeakReference<>(item);
    q.add(item);
    q.add(B);
    q.done(take(q));
    item = null;
    for (int i = 0; i < 50 && ref.get() != null; i++) {
      System.gc();
      Thread.onSpinWait();
    }
    assertNull(ref.get(), "the queue still references a done item");
    assertEquals(B, take(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void idleQueues_ownNoThread(QueueKind kind) {
    Set<Thread> before = ThreadOwnershipTest.toolkitThreads();
    List<WorkQueue<String>> idle = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      WorkQueue<String> q = kind.build(WorkQueue.<String>builder()); // the system clock
      q.add("k/queued"); // queued, never taken: still idle
      idle.add(q);
    }
    Set<Thread> after = ThreadOwnershipTest.toolkitThreads();
    after.removeAll(before);
    assertEquals(Set.of(), after);
    assertEquals(1000, idle.size());
  }

  // ---- takes ----

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void pollZero_neverWaits_andLeavesNoWakeUpBehind(QueueKind kind) {
    WorkQueue<String> q = queue(kind);
    if (kind.delays()) {
      ((DelayingQueue<String>) q).addAfter(A, ofSeconds(1)); // waits: not to be handed out
    }
    int wakeups = clock.pendingWakeups();
    assertTimeoutPreemptively(GUARD, () -> {
      assertEquals(Optional.empty(), q.poll(Duration.ZERO));
      assertEquals(Optional.empty(), q.poll(ofSeconds(-1)));
    });
    assertEquals(wakeups, clock.pendingWakeups());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void poll_timesOutOnTheQueueClock(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    Running<Optional<String>> polled = threads.start("poller", () -> q.poll(ofSeconds(5)));
    await().atMost(10, SECONDS).until(clock::hasWaiters); // the poll's timed wait
    clock.step(ofMillis(4999));
    assertFalse(polled.result().isDone(), "not yet: 4.999 s of 5");
    clock.step(ofMillis(1));
    assertEquals(Optional.empty(), result(polled));
    assertFalse(q.isShuttingDown());
    assertFalse(clock.hasWaiters(), "the timed wait left no wake-up behind");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void poll_returnsAnItemAddedWhileItWaits(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    Running<Optional<String>> polled = threads.start("poller", () -> q.poll(ofSeconds(5)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    q.add(A);
    assertEquals(Optional.of(A), result(polled));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void blockedGet_isWokenByAdd(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    Running<Optional<String>> got = threads.parked("getter", q::get);
    q.add(A);
    assertEquals(Optional.of(A), result(got));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void get_respondsToInterrupt_andTakesNothing(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    Running<Optional<String>> got = threads.parked("getter", q::get);
    got.thread().interrupt();
    assertInstanceOf(InterruptedException.class, failure(got));
    q.add(A);
    assertEquals(A, take(q), "nothing was taken by the interrupted get");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void get_interruptedWhileADelayedItemWaits_takesNothing(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, ofSeconds(1));
    Running<Optional<String>> got = threads.parked("getter", q::get);
    got.thread().interrupt();
    assertInstanceOf(InterruptedException.class, failure(got));
    assertEquals(1, q.waitingCount(), "the item still waits");
    clock.step(ofSeconds(1));
    assertEquals(List.of(A), drainNow(q));
  }

  /**
   * client-go: a delayed add that falls due while its item is still queued merges into that
   * round, so the item is handed out once. It used to stay in the waiting room until the
   * item's {@code done}, which then queued the item for a second round.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void delayedAddFallingDueWhileItsItemIsQueued_mergesIntoThatRound(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.add(A);
    q.addAfter(A, ofSeconds(1));
    clock.step(ofSeconds(2));
    assertEquals(Optional.of(A), q.poll(Duration.ZERO));
    q.done(A);
    assertEquals(Optional.empty(), q.poll(Duration.ZERO), "handed out once");
    assertEquals(0, q.waitingCount(), "the due add was merged, not left waiting");
  }

  // ---- shutdown ----

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addsAfterShutDown_areIgnored(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.shutDown();
    q.add(A);
    if (kind.delays()) {
      DelayingQueue<String> d = (DelayingQueue<String>) q;
      d.addAfter(B, Duration.ZERO);
      d.addAfter(C, ofSeconds(1));
      d.reschedule(D, ofSeconds(1));
      assertEquals(0, d.waitingCount());
    }
    if (kind.rateLimits()) {
      ((RateLimitingQueue<String>) q).addRateLimited(D);
    }
    assertEquals(0, q.size());
    clock.step(ofSeconds(1));
    assertTimeoutPreemptively(GUARD, () -> assertEquals(Optional.empty(), q.get()));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void getAfterShutDown_handsOutQueuedItems_thenReportsShutdownAtOnceEveryTime(QueueKind kind) {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    q.shutDown();
    assertTrue(q.isShuttingDown());
    assertTimeoutPreemptively(GUARD, () -> {
      assertEquals(Optional.of(A), q.get());
      assertEquals(Optional.of(B), q.get());
      for (int i = 0; i < 3; i++) {
        assertEquals(Optional.empty(), q.get());
        assertEquals(Optional.empty(), q.poll(Duration.ofHours(1)));
      }
    });
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void doneAfterShutDown_ofAnItemReAddedWhileProcessing_isStillHandedOut(QueueKind kind) {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    assertTimeoutPreemptively(GUARD, () -> {
      assertEquals(A, take(q));
      q.add(A);
      q.shutDown();
      q.done(A);
      assertEquals(Optional.of(A), q.get());
      q.done(A);
      assertEquals(Optional.empty(), q.get());
    });
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_wakesEveryBlockedTake_andIsIdempotent(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    List<Running<Optional<String>>> takes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      takes.add(threads.parked("getter-" + i, q::get));
    }
    takes.add(threads.parked("poller", () -> q.poll(Duration.ofHours(1))));
    assertTrue(takes.stream().noneMatch(r -> r.result().isDone()));
    q.shutDown();
    q.shutDown();
    for (Running<Optional<String>> r : takes) {
      assertEquals(Optional.empty(), result(r));
    }
    assertTrue(q.isShuttingDown());
    assertTrue(q.shutDownWithDrain(Duration.ZERO), "an empty queue is drained at once");
    assertTimeoutPreemptively(GUARD, () -> assertEquals(Optional.empty(), q.get()));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_waitsForQueuedAndProcessingItems(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    if (kind.delays()) {
      ((DelayingQueue<String>) q).addAfter(C, Duration.ofMinutes(1)); // discarded
    }
    String a = take(q);
    Running<Void> drain = threads.parked("drain", () -> {
      q.shutDownWithDrain();
      return null;
    });
    assertTrue(q.isShuttingDown());
    assertFalse(q.shutDownWithDrain(Duration.ZERO), "a processing, b queued: not drained");
    q.add(D); // ignored
    q.done(a);
    String b = take(q);
    assertEquals(B, b);
    assertFalse(drain.result().isDone(), "b is processing");
    q.done(b);
    result(drain);
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
    assertTimeoutPreemptively(GUARD, () -> assertEquals(Optional.empty(), q.get()));
  }

  /** An item whose hash code is 7, equal only to itself: such items share a bin of the map. */
  private static class SameHash {
    private final String name;

    SameHash(String name) {
      this.name = name;
    }

    @Override
    public int hashCode() {
      return 7;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * An add of a new item whose insert into the queue's map counts it in, finds another item
   * pushed into its bin first, and then throws from its {@code equals}, while a draining
   * shutdown waits and the last items finish: the drain must still end. The map counts an
   * insert in before its compare-and-set and out when it did not go in, so the drain saw the
   * queue not empty because of this add; an add without the lock must make it look again. On a
   * kind whose add of a new item takes the lock, the drain cannot look meanwhile: it ends once
   * the add has let the lock go.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_ends_whenARacingAddThrowsFromEqualsAfterTheMapCountedIt(QueueKind kind)
      throws Exception {
    WorkQueue<Object> q =
        remember(kind.build(WorkQueue.<Object>builder().clock(clock), o -> "g"));
    SameHash a = new SameHash("a");
    SameHash b = new SameHash("b");
    q.add(a);
    assertEquals(a, take(q)); // processing
    AtomicInteger comparedWithA = new AtomicInteger();
    List<Running<Void>> drain = new ArrayList<>();
    SameHash k = new SameHash("k") {
      @Override
      public boolean equals(Object o) {
        if (o == a && comparedWithA.incrementAndGet() == 2) {
          q.add(b); // the insert's scan saw only a: its compare-and-set at the bin's head fails
        } else if (o == b) { // the scan again, after that failure: the map counted k in
          try {
            drain.add(threads.start("drain", () -> {
              q.shutDownWithDrain();
              return null;
            }));
            Thread d = drain.get(0).thread();
            await().atMost(10, SECONDS).until(() -> d.getState() == Thread.State.WAITING
                || drain.get(0).result().isDone()); // the drain waits (or waits for the lock)
            Object next = take(q);
            assertEquals(b, next);
            q.done(b);
            q.done(a);
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          throw new IllegalStateException("equals of k");
        }
        return false;
      }
    };
    assertThrows(IllegalStateException.class, () -> q.add(k));
    assertEquals(1, drain.size(), "the scenario ran: k's insert met b");
    result(drain.get(0)); // ended, drained
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
  }

  /** One hash code for all; Comparable, but compareTo throws for a negative rank. */
  private record Ranked(int rank) implements Comparable<Ranked> {
    @Override
    public int hashCode() {
      return 42;
    }

    @Override
    public int compareTo(Ranked o) {
      if (rank < 0 || o.rank < 0) {
        throw new IllegalStateException("compareTo of " + this + " and " + o);
      }
      return Integer.compare(rank, o.rank);
    }
  }

  /**
   * An add whose insert throws after the JDK's map took the entry in (the item's compareTo while
   * the map turns a bin of one hash into a tree) is dropped again; the map counted it out but
   * never in. Eight such adds took the map's count to 0 with eight items queued, and a draining
   * shutdown then found the queue empty and returned at once.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_waitsForWhatIsQueued_afterAddsThatThrewInsideTheMap(QueueKind kind)
      throws Exception {
    WorkQueue<Object> q =
        remember(kind.build(WorkQueue.<Object>builder().clock(clock), o -> "g"));
    for (int i = 0; i < 64; i++) {
      q.add("filler-" + i); // the map's table grows past 64 bins, where a long bin becomes a tree
    }
    assertEquals(64, drainNow(q).size());
    for (int i = 0; i < 8; i++) {
      q.add(new Ranked(i)); // one bin of eight
    }
    for (int i = 1; i <= 8; i++) {
      Ranked ninth = new Ranked(-i);
      assertThrows(IllegalStateException.class, () -> q.add(ninth));
    }
    assertFalse(q.shutDownWithDrain(Duration.ZERO), "eight items are queued");
    assertEquals(8, drainNow(q).size());
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_isEndedByAConcurrentShutDown(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    take(q); // processing forever
    List<Running<Boolean>> timed = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      timed.add(threads.parked("drain-" + i, () -> q.shutDownWithDrain(Duration.ofHours(1))));
    }
    Running<Void> untimed = threads.parked("drain", () -> {
      q.shutDownWithDrain();
      return null;
    });
    q.shutDown();
    for (Running<Boolean> d : timed) {
      assertFalse(result(d), "ended by shutDown, not drained");
    }
    result(untimed);
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_timed_reportsTimeoutOnTheQueueClock(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    take(q);
    Running<Boolean> drain = threads.start("drain", () -> q.shutDownWithDrain(ofSeconds(3)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    clock.step(ofMillis(2999));
    assertFalse(drain.result().isDone());
    clock.step(ofMillis(1));
    assertFalse(result(drain));
  }

  /**
   * A timed drain waits through its clock's {@code awaitUntil}, whose contract has the caller
   * hold the lock once: a clock that lets it go once while it waits (here for 50 µs at a time,
   * returning early, as the contract allows) must leave the queue free to others. The drain
   * once called it holding the lock twice (the engine's hold and the drain's own), so a
   * {@code done} never got the lock and the drain never ended.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_timed_onAClockThatLetsTheLockGoOnce_letsADoneFinishIt(QueueKind kind)
      throws Exception {
    FakeClock time = new FakeClock();
    Clock napping = new Clock() {
      @Override
      public long nanoTime() {
        return time.nanoTime();
      }

      @Override
      public long awaitUntil(Lock lock, Condition condition, long deadlineNanos) {
        lock.unlock();
        try {
          LockSupport.parkNanos(50_000);
        } finally {
          lock.lock();
        }
        return deadlineNanos - time.nanoTime();
      }

      @Override
      public Cancellable schedule(long deadlineNanos, Runnable task) {
        return time.schedule(deadlineNanos, task);
      }
    };
    WorkQueue<String> q = remember(kind.build(napping));
    q.add(A);
    take(q);
    Running<Boolean> drain = threads.start("drain", () -> q.shutDownWithDrain(ofHours(1)));
    await().atMost(10, SECONDS).until(q::isShuttingDown);
    assertTimeoutPreemptively(GUARD, () -> q.done(A), "done waited for the drain's lock");
    assertTrue(result(drain), "drained once A was done");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_timed_reportsSuccess(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    take(q);
    Running<Boolean> drain = threads.start("drain", () -> q.shutDownWithDrain(ofSeconds(3)));
    await().atMost(10, SECONDS).until(clock::hasWaiters);
    q.done(A);
    assertTrue(result(drain));
    assertTrue(q.shutDownWithDrain(Duration.ZERO), "an empty queue is drained at once");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_isIdempotent(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.shutDown();
    q.shutDown();
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
    q.shutDown();
    assertTrue(q.isShuttingDown());
  }

  // ---- null arguments ----

  private static void assertNpe(String argument, QueueThreads.Blocking<?> call) {
    NullPointerException e = assertThrows(NullPointerException.class, call::call);
    assertEquals(argument + " must not be null", e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void nullArguments_failWithNpeNamingTheArgument_andChangeNothing(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = queue(kind);
    assertNpe("item", () -> {
      q.add(null);
      return null;
    });
    assertNpe("item", () -> {
      q.done(null);
      return null;
    });
    assertNpe("timeout", () -> q.poll(null));
    assertNpe("timeout", () -> q.pollResult(null));
    assertNpe("timeout", () -> q.shutDownWithDrain(null));
    assertFalse(q.isShuttingDown(), "shutDownWithDrain(null) does not shut down");
    if (kind.delays()) {
      DelayingQueue<String> d = (DelayingQueue<String>) q;
      assertNpe("item", () -> {
        d.addAfter(null, ofMillis(1));
        return null;
      });
      assertNpe("delay", () -> {
        d.addAfter(A, null);
        return null;
      });
      assertNpe("item", () -> {
        d.reschedule(null, ofMillis(1));
        return null;
      });
      assertNpe("delay", () -> {
        d.reschedule(A, null);
        return null;
      });
      assertNpe("item", () -> d.cancel(null));
      assertEquals(0, d.waitingCount());
    }
    if (kind.rateLimits()) {
      RateLimitingQueue<String> r = (RateLimitingQueue<String>) q;
      assertNpe("item", () -> {
        r.addRateLimited(null);
        return null;
      });
      assertNpe("item", () -> {
        r.forget(null);
        return null;
      });
      assertNpe("item", () -> r.numRequeues(null));
    }
    assertEquals(0, q.size());
    q.add(A);
    assertEquals(List.of(A), drainNow(q), "the queue keeps working");
  }

  // ---- delays: addAfter, the waiting room, cancel, reschedule ----

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addAfter_deliversAtTheReadyTime_notBefore_andNeverAgain(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(50));
    assertEquals(0, q.size());
    assertEquals(1, q.waitingCount());
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(49);
    assertEquals(List.of(), drainNow(q), "not before its ready time");
    clock.stepMillis(1);
    assertEquals(1, q.size());
    assertEquals(0, q.waitingCount());
    assertEquals(List.of(A), drainNow(q));
    clock.step(Duration.ofHours(1));
    assertEquals(List.of(), drainNow(q), "nothing reappears later");
    assertFalse(clock.hasWaiters(), "nothing left scheduled");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addAfter_ofAWaitingItem_keepsTheEarliestReadyTime(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(50));
    q.addAfter(A, ofMillis(70)); // later: dropped
    q.addAfter(B, ofMillis(50));
    q.addAfter(B, ofMillis(30)); // earlier: wins
    assertEquals(2, q.waitingCount());
    clock.stepMillis(29);
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(1);
    assertEquals(List.of(B), drainNow(q));
    clock.stepMillis(19);
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(1);
    assertEquals(List.of(A), drainNow(q));
    clock.stepMillis(100);
    assertEquals(List.of(), drainNow(q), "each once");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void dueItems_areQueuedInReadyTimeOrder(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter("k/1000", ofSeconds(1));
    q.addAfter("k/500", ofMillis(500));
    q.addAfter("k/250", ofMillis(250));
    clock.step(ofSeconds(1));
    assertEquals(List.of("k/250", "k/500", "k/1000"), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void laterAddAfter_whileOthersWait_firesAtItsOwnTime(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(100));
    clock.stepMillis(10);
    q.addAfter(B, ofMillis(20)); // due at 30, before a
    clock.stepMillis(20);
    assertEquals(List.of(B), drainNow(q));
    clock.stepMillis(69);
    assertEquals(List.of(), drainNow(q));
    clock.stepMillis(1);
    assertEquals(List.of(A), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void nonPositiveDelay_addsNow_andCountsARetry(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter("k/zero", Duration.ZERO);
    q.addAfter("k/negative", ofSeconds(-5));
    assertEquals(2, q.size());
    assertEquals(0, q.waitingCount());
    assertEquals(2, metrics.count("q", RETRIES));
    assertEquals(List.of("k/zero", "k/negative"), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void metrics_countARetryPerDelayedAdd_andDepthOnlyForDirtyItems(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(10));
    q.addAfter(A, ofMillis(20));
    assertEquals(2, metrics.count("q", RETRIES), "one retry per addAfter call");
    assertEquals(0, metrics.count("q", ADDS), "waiting is not dirty");
    assertEquals(0.0, metrics.value("q", DEPTH));
    clock.stepMillis(10);
    assertEquals(1, metrics.count("q", ADDS), "moved on time, with no consumer asking");
    assertEquals(1.0, metrics.value("q", DEPTH));
    q.shutDown();
    q.addAfter(B, ofMillis(10));
    assertEquals(2, metrics.count("q", RETRIES), "not counted after shutdown");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void dueItemAlreadyDirty_isNotQueuedTwice(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.add(A);
    q.addAfter(A, ofMillis(10));
    clock.stepMillis(10);
    assertEquals(List.of(A), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_discardsWaitingItems_handsOutQueuedOnes_andCancelsTheWakeUp(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.add(C);
    q.addAfter(A, ofMillis(10));
    q.addAfter(B, ofMillis(20));
    assertTrue(clock.hasWaiters(), "a named queue moves due items on time: a wake-up is armed");
    q.shutDown();
    assertEquals(0, q.waitingCount());
    assertFalse(clock.hasWaiters());
    clock.stepMillis(100);
    assertEquals(List.of(C), drainNow(q));
    assertTimeoutPreemptively(GUARD, () -> assertEquals(Optional.empty(), q.get()));
  }

  /**
   * {@link DelayingQueue}: "shutDown queues what is due, discards the items still waiting", as
   * if each item had been added at its ready time, whether or not a wake-up ran in between.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_queuesWhatIsDue_evenIfTheClockNeverRanItsWakeUp(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock late = TestClock.neverWaking();
    DelayingQueue<String> q = remember(kind.delaying(WorkQueue.<String>builder().clock(late)));
    q.addAfter(A, ofMillis(10));
    q.addAfter(B, ofSeconds(10));
    late.time.stepMillis(10);
    q.shutDown();
    assertEquals(0, q.waitingCount());
    assertTimeoutPreemptively(GUARD, () -> {
      assertEquals(Optional.of(A), q.get(), "due before the shutdown: still handed out");
      assertEquals(Optional.empty(), q.get());
    });
  }

  /**
   * A shutdown decides what is due at one reading of the clock: items with one ready time are
   * all kept or all discarded. It used to promote what was due, let the lock go, and promote
   * one more batch at a second reading before discarding the rest, so with the time moving
   * past their ready time in between, a batch of them was handed out and the others dropped.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_keepsOrDiscardsItemsDueTogether_allAlike_whileTheClockMoves(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock moving = TestClock.counting();
    DelayingQueue<String> q = remember(kind.delaying(WorkQueue.<String>builder().clock(moving)));
    int n = 200; // more than a promotion batch
    for (int i = 0; i < n; i++) {
      q.addAfter("k/" + i, ofSeconds(1));
    }
    moving.afterNextRead(() -> moving.time.step(ofSeconds(2)));
    q.shutDown();
    int handedOut = assertTimeoutPreemptively(GUARD, () -> drainNow(q)).size();
    assertTrue(handedOut == 0 || handedOut == n,
        "all " + n + " items fell due at once: kept or discarded alike, but " + handedOut
            + " were handed out");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDownWithDrain_discardsWaitingItems_andDrainsTheRest(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.add(A);
    q.addAfter(B, ofMillis(10));
    q.done(take(q));
    assertTrue(q.shutDownWithDrain(Duration.ZERO));
    assertEquals(0, q.waitingCount());
    assertFalse(clock.hasWaiters());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void cancel_removesOnlyAWaitingAdd(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(10));
    q.addAfter(B, ofMillis(20));
    q.add(C);
    assertTrue(q.cancel(A));
    assertFalse(q.cancel(A), "no longer waiting");
    assertFalse(q.cancel(C), "queued, not waiting: untouched");
    assertEquals(1, q.size());
    assertEquals(1, q.waitingCount());
    clock.stepMillis(20);
    assertEquals(List.of(C, B), drainNow(q));

    int before = clock.pendingWakeups(); // the metrics refresh of this named queue, if armed
    q.addAfter(D, ofMillis(10));
    assertEquals(before + 1, clock.pendingWakeups(), "a wake-up for d");
    assertTrue(q.cancel(D));
    assertEquals(before, clock.pendingWakeups(),
        "cancelling the last waiting item cancels the wake-up");

    q.add(A);
    String a = take(q);
    q.addAfter(A, Duration.ofMinutes(1));
    assertTrue(q.cancel(A), "the pending delayed re-add of a processing item");
    q.done(a);
    clock.step(Duration.ofMinutes(1));
    assertEquals(List.of(), drainNow(q));
  }

  /**
   * A due item counts as queued, and a cancel does not touch queued items: in every order,
   * however many items fell due with it (the priority and fair orders promote due items a batch
   * at a time, and an item behind the first batch is still due).
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void cancel_ofADueItem_isRefused_evenBehindManyDueItems(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    int n = 3 * DuePromotion.BATCH;
    for (int i = 0; i < n; i++) {
      q.addAfter("k/" + i, ofMillis(10));
    }
    clock.stepMillis(10);
    assertFalse(q.cancel("k/0"), "due: counts as queued");
    assertFalse(q.cancel("k/" + (n - 1)), "due, behind " + (n - 1) + " due items");
    assertEquals(n, drainNow(q).size(), "every due item is handed out");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void addAfter_neverPostpones_butReschedulePostponesOrAddsNow(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    q.addAfter(A, ofMillis(10));
    q.addAfter(A, ofMillis(50));
    clock.stepMillis(10);
    assertEquals(List.of(A), drainNow(q), "addAfter keeps the earlier time");

    q.addAfter(B, ofMillis(10));
    q.reschedule(B, ofMillis(50));
    clock.stepMillis(10);
    assertEquals(List.of(), drainNow(q), "reschedule postponed b");
    clock.stepMillis(40);
    assertEquals(List.of(B), drainNow(q));

    q.addAfter(C, ofMillis(50));
    q.reschedule(C, Duration.ZERO);
    assertEquals(0, q.waitingCount());
    assertEquals(List.of(C), drainNow(q), "reschedule to zero adds now");
    clock.stepMillis(100);
    assertEquals(List.of(), drainNow(q), "and not again");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void processingItem_reAddedWithDelay_waitsForBothItsDelayAndDone(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.add(A);
    String a = take(q);
    q.addAfter(A, ofSeconds(1));
    clock.stepMillis(1000);
    assertEquals(0, q.waitingCount());
    assertEquals(List.of(), drainNow(q), "due, but still processing");
    q.done(a);
    assertEquals(List.of(A), drainNow(q));

    q.add(A);
    a = take(q);
    q.addAfter(A, ofSeconds(1));
    q.done(a);
    assertEquals(List.of(), drainNow(q), "done, but its delay has not ended");
    clock.stepMillis(1000);
    assertEquals(List.of(A), drainNow(q));
  }

  /**
   * The same, for an item handed out straight from the waiting room (whose {@code done} may
   * skip looking there while no delayed add of the item came since): a delayed add made while
   * it is processing, due by its {@code done}, queues it at that {@code done}, behind an item
   * added after the delayed add fell due.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void itemTakenFromTheWaitingRoom_reAddedWithDelay_isQueuedAtDone(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, ofMillis(1));
    clock.stepMillis(1);
    String a = take(q); // made ready from the waiting room as it is handed out
    q.addAfter(A, ofMillis(1)); // due at 2 ms, while A is processing
    clock.stepMillis(5);
    q.add(C); // at 6 ms
    q.done(a); // A's due add queues it now, behind C
    assertEquals(List.of(C, A), drainNow(q));
  }

  /**
   * A count ({@code size}, which moves what is due into the order) does not change the order in
   * which items are handed out: an item whose delay ended before another was added still comes
   * first.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void size_doesNotReorder_aDueItemBehindALaterAdd(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, ofSeconds(1));
    clock.stepMillis(2000);
    q.add(C); // at 2 s; A has been ready since 1 s
    assertEquals(2, q.size());
    assertEquals(List.of(A, C), drainNow(q));
  }

  /**
   * The same when an operation on a later-due item moves it into the order first: items due
   * before it, moved in after it, still come first.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void dueItemsMovedInOutOfTurn_areStillHandedOutByReadyTime(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, ofMillis(1000));
    q.addAfter(B, ofMillis(2000));
    q.addAfter(D, ofMillis(1800));
    clock.stepMillis(1500);
    q.add(C); // at 1.5 s
    clock.stepMillis(1500);
    q.addAfter(B, ofSeconds(10)); // B's delayed add is due: it is queued first (ready at 2 s)
    assertEquals(4, q.size(), "A, C, D and B are queued");
    assertEquals(List.of(A, C, D, B), drainNow(q));
  }

  /**
   * Readings are compared by their difference, so a clock may start anywhere: on one that
   * starts near {@code Long.MAX_VALUE} (its readings wrap), an item added before a delayed
   * one falls due is still handed out first.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void clockStartingNearLongMax_keepsTheOrderOfAnAddAndALaterDueItem(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    FakeClock wrapping = new FakeClock(Long.MAX_VALUE - 1_000);
    DelayingQueue<String> q = remember(kind.delaying(wrapping));
    q.add(C);
    q.addAfter(A, ofMillis(1));
    wrapping.stepMillis(2);
    assertEquals(List.of(C, A), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void blockedGet_takesADelayedItemWhenItsDelayEnds(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, ofSeconds(1));
    Running<Optional<String>> got = threads.parked("getter", q::get);
    clock.stepMillis(999);
    assertFalse(got.result().isDone());
    clock.stepMillis(1);
    assertEquals(Optional.of(A), result(got));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void dueItems_comeOutInReadyTimeOrder_aheadOfLaterAdds_evenIfTheClockNeverRunsItsWakeUps(
      QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock late = TestClock.neverWaking();
    DelayingQueue<String> q = remember(kind.delaying(WorkQueue.<String>builder().clock(late)));
    q.addAfter("k/due-at-20", ofMillis(20));
    q.addAfter("k/due-at-10", ofMillis(10));
    late.time.stepMillis(30); // no wake-up ran: both still wait, unless an operation moves them
    q.add("k/added-at-30");
    assertEquals(List.of("k/due-at-10", "k/due-at-20", "k/added-at-30"), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void manyRandomDelays_everyItemDeliveredExactlyOnce(QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    // A quarter million by default (a million took 34 s of the build for the 8 kinds); a
    // million and more with -Plong or STRESS_SCALE >= 4.
    int n = 250_000 * StressScale.factor();
    Random random = new Random(7);
    for (int i = 0; i < n; i++) {
      q.addAfter("k/" + i, ofMillis(1 + random.nextInt(60_000)));
    }
    assertEquals(n, q.waitingCount());
    boolean[] seen = new boolean[n];
    int delivered = 0;
    for (int step = 0; step < 61; step++) {
      clock.step(ofSeconds(1));
      for (Optional<String> next = q.poll(Duration.ZERO); next.isPresent();
          next = q.poll(Duration.ZERO)) {
        int i = Integer.parseInt(next.get().substring(2));
        assertFalse(seen[i], "delivered twice: " + i);
        seen[i] = true;
        delivered++;
        q.done(next.get());
      }
    }
    assertEquals(n, delivered);
    assertEquals(0, q.waitingCount());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void systemClock_deliversADelayedItem_andShutDownLeavesNoThread(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = remember(kind.delaying(WorkQueue.<String>builder()));
    q.addAfter("k/soon", ofMillis(20));
    q.addAfter("k/never", Duration.ofHours(1));
    assertEquals(Optional.of("k/soon"), q.poll(ofSeconds(10)));
    q.shutDown();
    await().atMost(10, SECONDS).until(() -> ThreadOwnershipTest.toolkitThreads().isEmpty());
  }

  // ---- timeout vs shutdown, told apart: pollResult (SPEC §9; new API) ----

  private static void assertItem(PollResult<String> r, String item) {
    assertEquals(Optional.of(item), r.item());
    assertFalse(r.isTimedOut(), "timed out");
    assertFalse(r.isShutDown(), "shut down");
  }

  private static void assertTimedOut(PollResult<String> r) {
    assertEquals(Optional.empty(), r.item());
    assertTrue(r.isTimedOut(), "timed out");
    assertFalse(r.isShutDown(), "shut down");
  }

  private static void assertShutDown(PollResult<String> r) {
    assertEquals(Optional.empty(), r.item());
    assertFalse(r.isTimedOut(), "timed out");
    assertTrue(r.isShutDown(), "shut down");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void pollResult_handsOutAQueuedItem(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.add(B);
    assertItem(q.pollResult(Duration.ZERO), A);
    assertItem(q.pollResult(Duration.ofHours(1)), B);
    q.done(A);
    q.done(B);
    assertEquals(List.of(), drainNow(q));
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void pollResult_timesOut_atOnceForZero_andOnTheQueueClockForATimeout(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = queue(kind);
    if (kind.delays()) {
      ((DelayingQueue<String>) q).addAfter(A, Duration.ofHours(1)); // waits: nothing to take
    }
    assertTimedOut(q.pollResult(Duration.ZERO));
    int wakeups = clock.pendingWakeups();
    Running<PollResult<String>> polled =
        threads.start("poller", () -> q.pollResult(ofSeconds(5)));
    await().atMost(10, SECONDS).until(() -> clock.pendingWakeups() > wakeups);
    clock.step(ofMillis(4999));
    assertFalse(polled.result().isDone(), "not yet: 4.999 s of 5");
    clock.step(ofMillis(1));
    assertTimedOut(result(polled));
    assertFalse(q.isShuttingDown());
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void pollResult_saysShutDown_onlyOnceNothingIsLeftToHandOut(QueueKind kind) throws Exception {
    WorkQueue<String> q = queue(kind);
    q.add(A);
    q.shutDown();
    assertTimeoutPreemptively(GUARD, () -> {
      assertItem(q.pollResult(Duration.ofHours(1)), A);
      assertShutDown(q.pollResult(Duration.ZERO)); // a is processing: nothing to hand out
      assertShutDown(q.pollResult(Duration.ofHours(1))); // at once
      q.add(A); // re-add while processing, after shutdown: ignored
      q.done(A);
      assertShutDown(q.pollResult(Duration.ZERO));
    });
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void pollResult_blocked_isEndedByShutDown_andSaysShutDownNotTimedOut(QueueKind kind)
      throws Exception {
    WorkQueue<String> q = queue(kind);
    Running<PollResult<String>> polled =
        threads.parked("poller", () -> q.pollResult(Duration.ofHours(1)));
    q.shutDown();
    assertShutDown(result(polled));
  }

  // ---- user code never runs mid-change (SPEC §9; defect 1) ----
  //
  // A queue changes its state, calls a hook (a metrics update, Clock.schedule, the caller's
  // executor) and then finishes the change; a hook that throws leaves it half done. After the
  // fix the change is complete before any hook runs, and a hook that throws is logged and
  // swallowed: the call that ran it returns normally and no key is stranded.

  /** Runs a queue's calls, keeping what escapes them instead of failing at once. */
  private static final class Calls {
    final List<Throwable> escaped = new ArrayList<>();

    <R> R quietly(String what, QueueThreads.Blocking<R> call) {
      try {
        return call.call();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(what + " was interrupted", e);
      } catch (Throwable t) {
        escaped.add(new AssertionError(what + " threw " + t, t));
        return null;
      }
    }

    void run(String what, Runnable call) {
      quietly(what, () -> {
        call.run();
        return null;
      });
    }

    /** Takes the next item without waiting and checks it is {@code expected}. */
    void take(WorkQueue<String> q, String expected, String context) {
      Optional<String> got = quietly("poll(0) for " + expected, () -> q.poll(Duration.ZERO));
      assertEquals(Optional.of(expected), got,
          context + ": " + expected + " must be handed out (null: the take threw)" + escapes());
    }

    void none(WorkQueue<String> q, String context) {
      Optional<String> got = quietly("poll(0)", () -> q.poll(Duration.ZERO));
      assertEquals(Optional.empty(), got, context + ": nothing more" + escapes());
    }

    String escapes() {
      return escaped.isEmpty() ? "" : "; calls that threw: " + escaped;
    }

    /** No call let a hook's exception escape. */
    void assertNoneEscaped(String context) {
      if (!escaped.isEmpty()) {
        AssertionError e = new AssertionError(context + ": " + escaped.size()
            + " call(s) let a hook's exception escape; first: " + escaped.get(0).getMessage());
        escaped.forEach(e::addSuppressed);
        throw e;
      }
    }
  }

  /**
   * The round every hook test runs on a named queue of {@code kind}: adds, takes, a re-add while
   * processing, {@code done}, (for kinds that delay) a delayed add that falls due, later re-adds,
   * and a draining shutdown. Asserts that every key comes out exactly as with healthy hooks.
   */
  private static Calls hookRound(QueueKind kind, Clock queueClock, FakeClock time,
      MetricsProvider provider, String context) {
    Calls calls = new Calls();
    WorkQueue<String> q = kind.build(
        WorkQueue.<String>builder().clock(queueClock).name("hooks").metricsProvider(provider));
    try {
      calls.run("add(a)", () -> q.add(A));
      calls.run("add(b)", () -> q.add(B));
      calls.take(q, A, context + ", after add(a), add(b)");
      calls.run("add(a) while processing", () -> q.add(A));
      calls.run("done(a)", () -> q.done(A));
      calls.take(q, B, context + ", after done(a)");
      calls.run("done(b)", () -> q.done(B));
      calls.take(q, A, context + ", the re-add made while a was processing");
      calls.run("done(a)", () -> q.done(A));
      if (kind.delays()) {
        DelayingQueue<String> d = (DelayingQueue<String>) q;
        calls.run("addAfter(c, 1s)", () -> d.addAfter(C, ofSeconds(1)));
        time.step(ofSeconds(1));
        calls.take(q, C, context + ", 1 s after addAfter(c, 1s)");
        calls.run("done(c)", () -> q.done(C));
      }
      calls.none(q, context);
      calls.run("add(a) again", () -> q.add(A));
      calls.take(q, A, context + ", a later re-add");
      calls.run("done(a)", () -> q.done(A));
      Boolean drained = calls.quietly("shutDownWithDrain(0)", () -> q.shutDownWithDrain(
          Duration.ZERO));
      assertTrue(q.isShuttingDown(), context + ": the queue shut down" + calls.escapes());
      assertEquals(Boolean.TRUE, drained, context + ": nothing left: drained" + calls.escapes());
      calls.none(q, context + ", after shutdown");
    } finally {
      q.shutDown();
    }
    return calls;
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void metricsHooksThatAlwaysThrow_areSwallowed_andStrandNoKey(QueueKind kind) {
    FakeClock time = new FakeClock();
    Calls calls = hookRound(kind, time, time,
        new ThrowingMetricsProvider(ThrowingMetricsProvider.always()), "every hook throws");
    calls.assertNoneEscaped("every hook throws");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void aMetricsHookThatThrowsOnce_atAnyCall_isSwallowed_andStrandsNoKey(QueueKind kind) {
    FakeClock counted = new FakeClock();
    ThrowingMetricsProvider counting = new ThrowingMetricsProvider(ThrowingMetricsProvider.never());
    hookRound(kind, counted, counted, counting, "no hook throws").assertNoneEscaped("healthy");
    int hooks = counting.calls();
    assertTrue(hooks > 0, "the round calls the metrics hooks");
    List<String> broken = new ArrayList<>();
    for (int n = 1; n <= hooks; n++) {
      FakeClock time = new FakeClock();
      String context = "hook call #" + n;
      try {
        hookRound(kind, time, time,
            new ThrowingMetricsProvider(ThrowingMetricsProvider.only(n)), context)
            .assertNoneEscaped(context);
      } catch (AssertionError e) {
        broken.add(e.getMessage().lines().findFirst().orElse(context));
      }
    }
    assertEquals(List.of(), broken, "of the round's " + hooks + " hook calls, these broke the"
        + " queue when they threw (" + broken.size() + ")");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void shutDown_completes_whenAHookThrowsWhileItQueuesDueItems(QueueKind kind) {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock late = TestClock.neverWaking(); // due items move at the next operation: shutDown
    ThrowingMetricsProvider hooks = new ThrowingMetricsProvider(ThrowingMetricsProvider.never());
    DelayingQueue<String> q = remember(kind.delaying(late, "q", hooks));
    q.addAfter(A, ofSeconds(1));
    late.time.step(ofSeconds(1));
    hooks.throwOn(ThrowingMetricsProvider.always());
    Calls calls = new Calls();
    calls.run("shutDown()", q::shutDown);
    assertTrue(q.isShuttingDown(), "shutDown completed" + calls.escapes());
    assertTimeoutPreemptively(GUARD, () -> {
      Optional<String> first = calls.quietly("get()", q::get);
      if (first != null && first.isPresent()) {
        calls.run("done", () -> q.done(first.get()));
        assertEquals(Optional.empty(), calls.quietly("get()", q::get), "then nothing");
      }
      assertEquals(Boolean.TRUE, calls.quietly("shutDownWithDrain(0)",
          () -> q.shutDownWithDrain(Duration.ZERO)), "drained" + calls.escapes());
    });
    calls.assertNoneEscaped("hooks throw during shutDown");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void clockScheduleThatThrows_isSwallowed_andStrandsNoKey(QueueKind kind) {
    TestClock refusing = TestClock.throwing(); // get arms the metrics refresh; addAfter a wake-up
    Calls calls = hookRound(kind, refusing, refusing.time, new RecordingMetricsProvider(),
        "Clock.schedule throws");
    calls.assertNoneEscaped("Clock.schedule throws");
    assertTrue(refusing.schedules() > 0, "the round asked the clock for wake-ups");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void schedulerThatRejects_isSwallowed_andStrandsNoKey(QueueKind kind) throws Exception {
    ScheduledExecutorService stopped = Executors.newSingleThreadScheduledExecutor();
    stopped.shutdown(); // rejects every task from now on
    WorkQueue<String> q = remember(kind.build(WorkQueue.<String>builder().name("q")
        .metricsProvider(metrics).scheduler(stopped)));
    Calls calls = new Calls();
    assertTimeoutPreemptively(GUARD, () -> {
      calls.run("add(a)", () -> q.add(A));
      Optional<String> got = calls.quietly("get()", q::get); // arms the metrics refresh
      assertEquals(Optional.of(A), got,
          "get must hand a out so that done can follow (null: get threw)" + calls.escapes());
      calls.run("add(a) while processing", () -> q.add(A));
      calls.run("done(a)", () -> q.done(A));
      calls.take(q, A, "the re-add made while a was processing");
      calls.run("done(a)", () -> q.done(A));
      if (kind.delays()) {
        DelayingQueue<String> d = (DelayingQueue<String>) q;
        calls.run("addAfter(b, 1h)", () -> d.addAfter(B, Duration.ofHours(1)));
        assertEquals(1, d.waitingCount(), "b waits" + calls.escapes());
        assertTrue(d.cancel(B), "b waited");
      }
      calls.none(q, "rejecting scheduler");
      assertEquals(Boolean.TRUE,
          calls.quietly("shutDownWithDrain(0)", () -> q.shutDownWithDrain(Duration.ZERO)),
          "drained" + calls.escapes());
    });
    calls.assertNoneEscaped("the scheduler rejects");
  }

  // ---- bounded pauses and wake-ups (SPEC §9; defects 3 and 5b) ----

  /**
   * A named queue's metrics backstop releases due items a batch per wake-up, each wake-up
   * re-armed at once while more are due; a {@link FakeClock} step runs that whole chain, so
   * here every item is queued by the time the step returns, each batch under a lock hold of its
   * own. That the first take does not wait for the rest is checked by the next test, on a clock
   * that runs no wake-up.
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void manyItemsFallingDueTogether_onANamedQueue_areEachDeliveredOnce(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delayingNamed(kind);
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      q.addAfter("k/" + i, ofSeconds(1));
    }
    clock.step(ofSeconds(2));
    String first = q.poll(Duration.ZERO).orElseThrow(() -> new AssertionError("none came"));
    q.done(first);
    Set<String> delivered = new HashSet<>();
    delivered.add(first);
    for (Optional<String> next = q.poll(Duration.ZERO); next.isPresent();
        next = q.poll(Duration.ZERO)) {
      assertTrue(delivered.add(next.get()), "delivered twice: " + next.get());
      q.done(next.get());
    }
    assertEquals(n, delivered.size(), "every due item is delivered");
  }

  /**
   * The same as above with the take alone finding the items due (the clock never runs the
   * queue's wake-ups), so that what the take itself does is measured apart from what a wake-up
   * does. (On a {@link FakeClock}, {@code step} also runs any wake-up that a wake-up re-arms for
   * a time already reached: releasing batches by such a chain would still promote them all in
   * the step, before the first take.)
   */
  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void manyItemsFallingDueTogether_theTakeThatFindsThemDue_releasesABoundedBatch(
      QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock late = TestClock.neverWaking();
    DelayingQueue<String> q = remember(kind.delaying(late, "q", metrics));
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      q.addAfter("k/" + i, ofSeconds(1));
    }
    late.time.step(ofSeconds(2));
    assertTrue(q.poll(Duration.ZERO).isPresent(), "one came");
    double depth = metrics.value("q", DEPTH);
    assertTrue(depth < 10_000, "the depth right after the first take was " + (long) depth
        + ": the take promoted all " + n + " due items, under the lock, before handing one out");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void unnamedQueue_schedulesNothingOnItsClock_forDelayedItems_whileAConsumerWaits(
      QueueKind kind) throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    TestClock counting = TestClock.counting();
    DelayingQueue<String> q = remember(kind.delaying(counting));
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    Running<Void> consumer = threads.parked("consumer", () -> {
      for (Optional<String> next = q.get(); next.isPresent(); next = q.get()) {
        got.add(next.get());
        q.done(next.get());
      }
      return null;
    });
    q.addAfter("k/3", ofSeconds(3)); // each a new head while the consumer waits
    q.addAfter("k/2", ofSeconds(2));
    q.addAfter("k/1", ofSeconds(1));
    counting.time.step(ofSeconds(3));
    List<String> delivered = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String next = got.poll(10, SECONDS);
      assertTrue(next != null, "delivered so far: " + delivered);
      delivered.add(next);
    }
    assertEquals(List.of("k/1", "k/2", "k/3"), delivered);
    assertEquals(0, counting.schedules(), "wake-ups the unnamed queue scheduled on its clock"
        + " (a shared timer) although a consumer was waiting for its items");
    q.shutDown();
    result(consumer);
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void consumerOnAFakeClock_parksUntilTheHeadIsDue_insteadOfSpinning(QueueKind kind)
      throws Exception {
    assumeTrue(kind.delays(), "needs addAfter");
    DelayingQueue<String> q = delaying(kind);
    q.addAfter(A, Duration.ofNanos(10_000)); // 10 µs away, and fake time stands still
    Running<Optional<String>> consumer = threads.start("consumer", q::get);
    await("the consumer parks instead of spinning (its state stays RUNNABLE)")
        .atMost(5, SECONDS).until(() -> QueueThreads.isParked(consumer.thread()));
    clock.step(Duration.ofNanos(10_000));
    assertEquals(Optional.of(A), result(consumer));
  }

  // ---- items whose equals or hashCode throw (SPEC §9; defect 5a) ----

  /**
   * A key whose hash is chosen, so that two keys collide, and whose {@code equals} throws if it
   * is {@code broken}. One fairness group for FAIR.
   */
  record Key(String name, int hash, boolean broken) {
    static Key of(String name, int hash) {
      return new Key(name, hash, false);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      if (broken) {
        throw new IllegalStateException("equals of " + name + " is broken");
      }
      return o instanceof Key k && k.name.equals(name) && k.hash == hash && !k.broken;
    }

    @Override
    public String toString() {
      return name;
    }
  }

  private <T> List<T> drainQuietly(WorkQueue<T> q, Calls calls) {
    List<T> out = new ArrayList<>();
    for (int attempts = 0; attempts < 100; attempts++) {
      Optional<T> next = calls.quietly("poll(0)", () -> q.poll(Duration.ZERO));
      if (next == null) {
        continue; // it threw: try again
      }
      if (next.isEmpty()) {
        break;
      }
      out.add(next.get());
      calls.run("done(" + next.get() + ")", () -> q.done(next.get()));
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void delayedItemWhoseEqualsThrows_failsOnlyItsOwnCall_andHarmsNoOtherItem(QueueKind kind) {
    assumeTrue(kind.delays(), "needs addAfter");
    @SuppressWarnings("unchecked")
    DelayingQueue<Key> q = remember((DelayingQueue<Key>) kind.build(
        WorkQueue.<Key>builder().clock(clock), k -> "tenant"));
    Key h = Key.of("H", 1);
    Key a1 = Key.of("A1", 42);
    Key bad = new Key("BAD", 42, true); // collides with A1
    Key a2 = Key.of("A2", 7);
    q.addAfter(h, ofSeconds(1));
    q.addAfter(a1, ofSeconds(5));
    Calls own = new Calls();
    own.run("addAfter(BAD, 5s)", () -> q.addAfter(bad, ofSeconds(5))); // may fail: its own call
    Calls others = new Calls();
    others.run("addAfter(A2, 5s)", () -> q.addAfter(a2, ofSeconds(5)));
    others.quietly("waitingCount()", q::waitingCount);
    clock.step(ofSeconds(5));
    List<Key> delivered = drainQuietly(q, others);
    assertTrue(delivered.containsAll(List.of(h, a1, a2)),
        "H, A1 and A2 must all be delivered; delivered " + delivered
            + (own.escaped.isEmpty() ? "" : " (BAD's own call threw: fine)") + others.escapes());
    others.assertNoneEscaped("calls for other items than BAD");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void itemWhoseEqualsThrows_failsOnlyItsOwnAdd_andHarmsNoOtherItem(QueueKind kind) {
    WorkQueue<Key> q = remember(kind.build(WorkQueue.<Key>builder().clock(clock), k -> "tenant"));
    Key a1 = Key.of("A1", 42);
    Key bad = new Key("BAD", 42, true);
    Key a2 = Key.of("A2", 42);
    q.add(a1);
    Calls own = new Calls();
    own.run("add(BAD)", () -> q.add(bad));
    Calls others = new Calls();
    others.run("add(A2)", () -> q.add(a2));
    List<Key> delivered = drainQuietly(q, others);
    assertTrue(delivered.containsAll(List.of(a1, a2)),
        "A1 and A2 must both be delivered; delivered " + delivered + others.escapes());
    others.assertNoneEscaped("calls for other items than BAD");
  }
}
