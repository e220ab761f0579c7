package dev.workqueue;

import static dev.workqueue.metrics.MetricsProvider.DEPTH;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofSeconds;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How due items reach the queue without a timer (a queue without metrics schedules nothing):
 * every operation sees what is due as queued, as if each item had been added at its ready
 * time; a waiting consumer (the leader) parks until the head's ready time and hands the lead to
 * another waiting consumer when it leaves; nobody spins. All on a {@link FakeClock}: a
 * consumer's timed wait is a wake-up on it, so the tests see when, and for what, the leader
 * waits.
 */
class DelayingQueueConsumersTest {

  private final FakeClock clock = new FakeClock();
  private final DelayingQueue<String> q = WorkQueue.<String>builder().clock(clock).buildDelaying();
  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    q.shutDown();
    threads.shutdownNow();
  }

  private List<String> drainNow() throws InterruptedException {
    List<String> out = new ArrayList<>();
    for (Optional<String> n = q.poll(Duration.ZERO); n.isPresent(); n = q.poll(Duration.ZERO)) {
      out.add(n.get());
      q.done(n.get());
    }
    return out;
  }

  private static long nanos(Duration d) {
    return d.toNanos();
  }

  /** Waits until the earliest pending wake-up on the clock is {@code deadline}. */
  private void awaitWakeUpAt(long deadline) {
    await().atMost(10, SECONDS).until(() -> Long.valueOf(deadline).equals(clock.nextWakeup()));
  }

  private static <T> T result(Future<T> f) throws Exception {
    return f.get(10, SECONDS);
  }

  // ---- every operation queues what is due first ----

  @Test
  void queueWithoutMetrics_schedulesNothing_andItsOperationsSeeDueItemsQueued() {
    q.addAfter("a", ofMillis(10));
    q.addAfter("b", ofMillis(20));
    assertEquals(0, clock.pendingWakeups(), "no timer while nobody waits");
    clock.stepMillis(10);
    assertEquals(0, clock.pendingWakeups());
    assertEquals(1, q.size(), "a is due: queued");
    assertEquals(1, q.waitingCount(), "b still waits");
  }

  @Test
  void dueItem_isQueuedAheadOfALaterAdd() throws Exception {
    q.addAfter("a", ofMillis(10));
    clock.stepMillis(15);
    q.add("b");
    assertEquals(List.of("a", "b"), drainNow(), "a became ready at 10 ms, b was added at 15 ms");
  }

  @Test
  void done_queuesWhatIsDueFirst_soARequeueGoesBehindItemsDueBeforeIt() throws Exception {
    q.add("x");
    assertEquals(Optional.of("x"), q.poll(Duration.ZERO));
    q.addAfter("x", ofMillis(10)); // becomes due while x is processing: x is dirty again at 10
    q.addAfter("z", ofMillis(11));
    clock.stepMillis(12);
    q.done("x"); // x goes back at done (12 ms), behind z (ready at 11 ms)
    assertEquals(List.of("z", "x"), drainNow());
  }

  @Test
  void cancel_ofADueItem_findsItQueuedNotWaiting() throws Exception {
    q.addAfter("a", ofMillis(10));
    clock.stepMillis(10);
    assertFalse(q.cancel("a"), "a was added at 10 ms: it no longer waits");
    assertEquals(List.of("a"), drainNow());
  }

  @Test
  void addAfter_ofADueItem_isANewDelayedAdd_notMergedWithTheDueOne() throws Exception {
    q.addAfter("a", ofMillis(10));
    clock.stepMillis(10);
    q.addAfter("a", ofMillis(10));
    assertEquals(List.of("a"), drainNow());
    assertEquals(1, q.waitingCount());
    clock.stepMillis(10);
    assertEquals(List.of("a"), drainNow(), "and again 10 ms later");
  }

  @Test
  void shutDown_keepsWhatIsDue_andDiscardsWhatWaits() throws Exception {
    q.addAfter("due", ofMillis(10));
    q.addAfter("later", ofSeconds(10));
    clock.stepMillis(10);
    q.shutDown();
    assertEquals(0, q.waitingCount());
    assertEquals(Optional.of("due"), q.get(), "queued before the shutdown: still handed out");
    assertEquals(Optional.empty(), q.get());
  }

  // ---- the leader ----

  @Test
  void waitingConsumer_waitsUntilTheHeadIsDue_thenTakesIt() throws Exception {
    Future<Optional<String>> got = threads.submit(q::get);
    QueueThreads.awaitWaiting(1);
    q.addAfter("a", ofSeconds(1));
    awaitWakeUpAt(nanos(ofSeconds(1)));
    assertEquals(1, clock.pendingWakeups(), "the consumer's own wait: no timer besides");
    clock.step(ofSeconds(1));
    assertEquals(Optional.of("a"), result(got));
    assertEquals(0, clock.pendingWakeups());
  }

  @Test
  void earlierHead_wakesTheLeader_whoWaitsForItInstead() throws Exception {
    q.addAfter("late", ofSeconds(10));
    Future<Optional<String>> got = threads.submit(q::get);
    awaitWakeUpAt(nanos(ofSeconds(10)));
    q.addAfter("early", ofSeconds(1));
    awaitWakeUpAt(nanos(ofSeconds(1)));
    clock.step(ofSeconds(1));
    assertEquals(Optional.of("early"), result(got));
    assertEquals(1, q.waitingCount());
  }

  @Test
  void leaderThatTakesAnItem_handsTheLeadToAnotherWaitingConsumer() throws Exception {
    q.addAfter("x", ofSeconds(1));
    Future<Optional<String>> first = threads.submit(q::get);
    awaitWakeUpAt(nanos(ofSeconds(1))); // first leads
    Future<Optional<String>> second = threads.submit(q::get);
    QueueThreads.awaitWaiting(2);
    // A plain add signals one waiter, the longest waiting: the leader takes "now" and leaves
    // (its timed wait is cancelled). The other must take over the wait for x: were it left
    // waiting untimed, nothing would ever wake it.
    q.add("now");
    await().atMost(10, SECONDS).until(() -> first.isDone() || second.isDone());
    awaitWakeUpAt(nanos(ofSeconds(1)));
    clock.step(ofSeconds(1));
    Set<String> taken = new HashSet<>();
    taken.add(result(first).orElseThrow());
    taken.add(result(second).orElseThrow());
    assertEquals(Set.of("now", "x"), taken);
  }

  @Test
  void interruptedLeader_handsTheLeadToAnotherWaitingConsumer() throws Exception {
    q.addAfter("x", ofSeconds(1));
    Future<Optional<String>> leader = threads.submit(q::get);
    awaitWakeUpAt(nanos(ofSeconds(1)));
    Future<Optional<String>> follower = threads.submit(q::get);
    QueueThreads.awaitWaiting(2);
    leader.cancel(true); // interrupts it
    awaitWakeUpAt(nanos(ofSeconds(1))); // the follower's wait now (the leader's is gone)
    clock.step(ofSeconds(1));
    assertEquals(Optional.of("x"), result(follower));
  }

  @Test
  void timedPoll_endingBeforeTheHead_waitsItsOwnTime_andDoesNotLead() throws Exception {
    q.addAfter("a", ofSeconds(1));
    Future<Optional<String>> polled = threads.submit(() -> q.poll(ofMillis(100)));
    awaitWakeUpAt(nanos(ofMillis(100)));
    Future<Optional<String>> got = threads.submit(q::get);
    // The get leads (the poll does not): its wait for the head is the second wake-up.
    await().atMost(10, SECONDS).until(() -> clock.pendingWakeups() == 2);
    clock.stepMillis(100);
    assertEquals(Optional.empty(), result(polled));
    clock.stepMillis(900);
    assertEquals(Optional.of("a"), result(got));
  }

  // ---- the metrics backstop of a named queue ----

  @Test
  void namedQueue_movesDueItemsOnTimeWithoutConsumers_butNotRightAfterAConsumerTookOne()
      throws Exception {
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    DelayingQueue<String> named = WorkQueue.<String>builder().clock(clock).name("n")
        .metricsProvider(metrics).buildDelaying();
    named.addAfter("a", ofMillis(10));
    assertEquals(nanos(ofMillis(10)), clock.nextWakeup(), "no consumer: a wake-up at a's time");
    clock.stepMillis(10);
    assertEquals(1.0, metrics.value("n", DEPTH), "moved by the wake-up: the depth is on time");

    named.addAfter("later", ofSeconds(10));
    assertEquals(Optional.of("a"), named.poll(Duration.ZERO)); // a consumer took an item
    named.addAfter("b", Duration.ofNanos(100_000));
    long grace = DelayWakeup.GRACE_NANOS;
    assertEquals(nanos(ofMillis(10)) + grace, clock.nextWakeup(),
        "b's wake-up waits for the consumer a while: it is likely back to move b itself");
    clock.step(Duration.ofNanos(grace));
    assertEquals(1.0, metrics.value("n", DEPTH), "it was not: the wake-up moved b");
    named.shutDown();
  }
}
