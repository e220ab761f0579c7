package dev.workqueue;

import static java.time.Duration.ofMillis;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.Test;

/**
 * What is specific to the client-go delaying queue: an add of an item that waits for a delay
 * leaves the delayed add in place (client-go), unless the queue is built with
 * {@code addSupersedesDelayed}; and the caller's scheduler. Everything the delaying kinds share
 * ({@code addAfter}, earliest-wins, {@code cancel}, {@code reschedule}, the waiting room at
 * shutdown, volume, the system clock) is in {@link QueueContractTest}.
 */
class DelayingQueueTest {
  private final FakeClock clock = new FakeClock();

  private static <T> List<T> drainNow(WorkQueue<T> q) throws InterruptedException {
    List<T> out = new ArrayList<>();
    for (Optional<T> next = q.poll(Duration.ZERO); next.isPresent(); next = q.poll(Duration.ZERO)) {
      out.add(next.get());
      q.done(next.get());
    }
    return out;
  }

  @Test
  void add_ofWaitingItem_byDefault_processesItNowAndAgainLater() throws Exception {
    DelayingQueue<String> q = WorkQueue.<String>builder().clock(clock).buildDelaying();
    q.addAfter("a", ofMillis(10));
    q.add("a");
    assertEquals(List.of("a"), drainNow(q));
    clock.stepMillis(10);
    assertEquals(List.of("a"), drainNow(q), "client-go behaviour: the delayed add still fires");
  }

  @Test
  void add_ofWaitingItem_withAddSupersedesDelayed_processesItOnce() throws Exception {
    DelayingQueue<String> q = WorkQueue.<String>builder().clock(clock)
        .addSupersedesDelayed(true).buildDelaying();
    q.addAfter("a", ofMillis(10));
    q.add("a");
    assertEquals(0, q.waitingCount());
    assertEquals(List.of("a"), drainNow(q));
    clock.stepMillis(10);
    assertEquals(List.of(), drainNow(q));
    assertFalse(clock.hasWaiters());
  }

  @Test
  void userScheduler_runsTheWakeUps() throws Exception {
    ScheduledExecutorService mine = Executors.newSingleThreadScheduledExecutor(
        r -> new Thread(r, "my-scheduler"));
    try {
      DelayingQueue<String> q = WorkQueue.<String>builder().scheduler(mine).buildDelaying();
      q.addAfter("x", ofMillis(5));
      assertEquals(Optional.of("x"), q.poll(Duration.ofSeconds(10)));
      q.shutDownWithDrain(Duration.ZERO);
    } finally {
      mine.shutdownNow();
    }
    assertThrows(IllegalStateException.class,
        () -> WorkQueue.<String>builder().clock(clock).scheduler(mine).buildDelaying());
  }

  @Test
  void supersede_anAddOfAQueuedItemThatAlsoWaits_removesTheWaitingAdd() {
    DelayingQueue<String> q =
        WorkQueue.<String>builder().clock(clock).addSupersedesDelayed(true).buildDelaying();
    q.add("x");
    q.addAfter("x", Duration.ofMinutes(1)); // waits, whatever its state (client-go's rule)
    q.add("x"); // supersedes the waiting add, though x is already queued
    assertEquals(0, q.waitingCount());
  }

  @Test
  void size_countsEveryDueItem_evenBehindManyDueAddsThatMergeIntoDirtyItems() throws Exception {
    DelayingQueue<String> q = WorkQueue.<String>builder().clock(clock).buildDelaying();
    for (int i = 0; i < 200; i++) {
      q.add("k" + i);
      assertEquals(Optional.of("k" + i), q.poll(Duration.ZERO)); // processing
      q.addAfter("k" + i, Duration.ofSeconds(1)); // due later: merges (held until done)
    }
    q.addAfter("b", Duration.ofSeconds(1)); // due with them, behind them
    clock.step(Duration.ofSeconds(1));
    assertEquals(1, q.size(), "b is due, so it is queued");
    assertEquals(0, q.waitingCount());
  }

}
