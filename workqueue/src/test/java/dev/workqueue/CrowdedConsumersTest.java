package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The FIFO engine's two ways for a new item to join the line without the lock held across the
 * add: onto the intake while one thread takes, under the lock once several do ({@code
 * CrowdWindow}). The contract suite runs every promise in both ways ({@link
 * QueueKind#PLAIN_CROWDED}); this class checks how the engine switches between them.
 */
class CrowdedConsumersTest {
  private static final int WINDOW = CrowdWindow.WINDOW;

  private static QueueEngine<String> engine(WorkQueue<String> q) {
    return ((DefaultWorkQueue<String>) q).engine;
  }

  private static void addAll(WorkQueue<String> q, int from, int n) {
    for (int i = from; i < from + n; i++) {
      q.add("k" + i);
    }
  }

  /** Takes and finishes {@code n} items on this thread, checking they come in order. */
  private static void takeInOrder(WorkQueue<String> q, int from, int n) throws Exception {
    for (int i = from; i < from + n; i++) {
      Optional<String> item = q.poll(Duration.ZERO);
      assertEquals(Optional.of("k" + i), item);
      q.done(item.get());
    }
  }

  /** The same on a new thread, waited for. */
  private static void takeInOrderOnAnotherThread(WorkQueue<String> q, int from, int n)
      throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = new Thread(() -> {
      try {
        takeInOrder(q, from, n);
      } catch (Throwable e) {
        failure.set(e);
      }
    });
    t.start();
    t.join();
    if (failure.get() != null) {
      throw new AssertionError("on the other thread", failure.get());
    }
  }

  @Test
  void oneTakingThread_neverCrowds_andAddsGoThroughTheIntake() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    QueueEngine<String> engine = engine(q);
    addAll(q, 0, 3 * WINDOW);
    assertTrue(engine.intakeHoldsEntries(), "adds pushed onto the intake");
    takeInOrder(q, 0, 3 * WINDOW);
    assertFalse(engine.isCrowded());
    q.add("x");
    assertTrue(engine.intakeHoldsEntries());
    assertEquals(1, q.size());
  }

  @Test
  void twoThreadsTakingInOneWindow_crowd_thenAddsJoinTheLineUnderTheLock() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    QueueEngine<String> engine = engine(q);
    addAll(q, 0, WINDOW);
    takeInOrder(q, 0, 1);
    takeInOrderOnAnotherThread(q, 1, 1);
    takeInOrder(q, 2, WINDOW - 3); // one take short of the window: not decided yet
    assertFalse(engine.isCrowded());
    takeInOrder(q, WINDOW - 1, 1);
    assertTrue(engine.isCrowded(), "two threads took in one window");

    addAll(q, WINDOW, 3);
    assertFalse(engine.intakeHoldsEntries(), "a crowded queue's add does not use the intake");
    assertEquals(3, q.size());
    takeInOrder(q, WINDOW, 3);
    assertTrue(engine.checkInvariants());
  }

  @Test
  void crowdedQueue_quietWindowsTakenByOneThread_endIt_andAddsUseTheIntakeAgain()
      throws Exception {
    int quiet = CrowdWindow.QUIET_WINDOWS;
    WorkQueue<String> q = WorkQueue.<String>builder().startCrowdedForTests().build();
    QueueEngine<String> engine = engine(q);
    assertTrue(engine.isCrowded());
    addAll(q, 0, (quiet + 2) * WINDOW);
    assertFalse(engine.intakeHoldsEntries());
    takeInOrder(q, 0, WINDOW); // the first take changes the taker from none: one change
    assertTrue(engine.isCrowded(), "a change in the window keeps it crowded");
    takeInOrder(q, WINDOW, (quiet - 1) * WINDOW);
    assertTrue(engine.isCrowded(), "fewer quiet windows than " + quiet + " keep it crowded");
    takeInOrderOnAnotherThread(q, quiet * WINDOW, 1); // a change: the quiet count starts again
    takeInOrder(q, quiet * WINDOW + 1, WINDOW - 1);
    assertTrue(engine.isCrowded());
    takeInOrder(q, (quiet + 1) * WINDOW, WINDOW); // a quiet window: the first of a new count
    assertTrue(engine.isCrowded());
    addAll(q, (quiet + 2) * WINDOW, quiet * WINDOW);
    takeInOrder(q, (quiet + 2) * WINDOW, quiet * WINDOW);
    assertFalse(engine.isCrowded(), quiet + " windows in a row without a change end it");
    q.add("x");
    assertTrue(engine.intakeHoldsEntries());
  }

  @Test
  void itemsAddedBothWays_comeOutInTheOrderTheyWereAdded() throws Exception {
    WorkQueue<String> q = WorkQueue.create();
    QueueEngine<String> engine = engine(q);
    addAll(q, 0, 2 * WINDOW); // through the intake
    takeInOrder(q, 0, 1);
    takeInOrderOnAnotherThread(q, 1, WINDOW - 1);
    assertTrue(engine.isCrowded());
    addAll(q, 2 * WINDOW, 5); // under the lock, behind those added through the intake
    List<String> rest = new ArrayList<>();
    for (Optional<String> item; (item = q.poll(Duration.ZERO)).isPresent(); ) {
      rest.add(item.get());
      q.done(item.get());
    }
    List<String> expected = new ArrayList<>();
    for (int i = WINDOW; i < 2 * WINDOW + 5; i++) {
      expected.add("k" + i);
    }
    assertEquals(expected, rest);
  }

  /**
   * A crowded queue's add of a new item puts it in line under the lock: nothing goes onto the
   * intake, and a re-add while the item is processing is held for its {@code done}. (A first
   * version waited for the lock with the entry unpublished, while locked paths that meet such
   * an entry waited for its publication holding the lock: a deadlock, which {@code
   * DelayingQueueCrowdedLincheckTest#modelChecking_addsRacingANewRound} looks for.)
   */
  @Test
  void crowdedQueue_addsOfANewItem_takeTheLock_andSkipTheIntake() throws Exception {
    WorkQueue<String> q = WorkQueue.<String>builder().startCrowdedForTests().build();
    QueueEngine<String> engine = engine(q);
    q.add("a");
    assertFalse(engine.intakeHoldsEntries());
    assertEquals(Optional.of("a"), q.poll(Duration.ZERO));
    q.add("a"); // processing: held for its done
    q.done("a");
    assertEquals(Optional.of("a"), q.poll(Duration.ZERO));
    q.done("a");
    assertTrue(engine.checkInvariants());
  }

  /**
   * A shutdown that lands between an add's check of the flag and its push onto the intake
   * (here from the key's {@code hashCode}, when the map inserts the entry): the entry leaves the
   * map, so the drain finds nothing left, and the add is dropped as after a shutdown.
   */
  @Test
  void shutDownDuringAnAddThroughTheIntake_leavesNothingForTheDrain() throws Exception {
    WorkQueue<Object> q = WorkQueue.create();
    AtomicInteger hashes = new AtomicInteger();
    Object key = new Object() {
      @Override
      public int hashCode() {
        if (hashes.incrementAndGet() == 2) { // the lookup first, then the insert
          q.shutDown();
        }
        return 42;
      }
    };
    q.add(key);
    assertTrue(hashes.get() >= 2, "the shutdown ran during the add");
    assertTrue(q.isShuttingDown());
    assertEquals(0, q.size());
    assertTrue(q.shutDownWithDrain(Duration.ZERO), "no entry left for the drain to wait for");
  }
}
