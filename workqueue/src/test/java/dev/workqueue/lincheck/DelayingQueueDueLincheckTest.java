package dev.workqueue.lincheck;

import dev.workqueue.DelayingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueBuilder;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.testsupport.LincheckRuns;
import java.time.Duration;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link DelayingQueue} while delayed adds fall due, checked by Lincheck
 * against {@link DueDelayingQueueSpec}: a {@code step} operation moves the {@link FakeClock}
 * one delay and a nanosecond on, so every key waiting then is due. (The other delaying-queue
 * Lincheck test keeps the clock still.) Due keys are handed out straight from the waiting room,
 * and the {@code done} of such a key skips the queue's lock while no delayed add of it came
 * since the take: {@link #modelChecking_doneOfAKeyFromTheWaitingRoomRacingADelayedAddOfIt}
 * explores that race ({@link QueueLincheckHarness#RACE_INVOCATIONS} interleavings).
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class DelayingQueueDueLincheckTest {
  private static final Duration DELAY = Duration.ofMinutes(5);
  private static final Duration STEP = DELAY.plusNanos(1);

  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 1_000);
  private final DelayingQueue<Integer> queue = build(WorkQueue.<Integer>builder().clock(clock));

  /**
   * The queue under test, from a builder on the scenario's clock; {@link
   * DelayingQueueDueCrowdedLincheckTest} builds it crowded. (Called while this instance is being
   * built: it may use only {@code b}.)
   */
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return b.buildDelaying();
  }

  /** The sequential specification the queue is checked against. */
  protected Class<?> spec() {
    return DueDelayingQueueSpec.class;
  }

  @Operation
  public void add(@Param(name = "key") int key) {
    queue.add(key);
  }

  @Operation
  public void addAfter(@Param(name = "key") int key) {
    queue.addAfter(key, DELAY);
  }

  @Operation
  public void step() {
    clock.step(STEP);
  }

  /** The non-blocking take: the item handed out, or null when nothing is queued. */
  @Operation
  public Integer poll() throws InterruptedException {
    return queue.poll(Duration.ZERO).orElse(null);
  }

  @Operation
  public void done(@Param(name = "key") int key) {
    queue.done(key);
  }

  @Operation
  public int size() {
    return queue.size();
  }

  @Operation
  public int waitingCount() {
    return queue.waitingCount();
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(spec(), 2, 100).check(getClass()); // 4 before the time cut
  }

  /**
   * Key 1 is handed out straight from the waiting room; then its {@code done} (which may skip
   * the lock) races another thread's delayed add of it and a step that makes that add due, and
   * an add of key 2. Afterwards the counts and the order tell whether the due add was queued
   * at the {@code done} (behind key 2) or counted as done before the add.
   */
  @Test
  void modelChecking_doneOfAKeyFromTheWaitingRoomRacingADelayedAddOfIt()
      throws NoSuchMethodException {
    Class<?> test = getClass();
    QueueLincheckHarness.checkRace(test, spec(),
        List.of(actor(test, "addAfter", 1), actor(test, "step"), actor(test, "poll")),
        List.of(List.of(actor(test, "done", 1)),
            List.of(actor(test, "addAfter", 1), actor(test, "step"), actor(test, "add", 2))),
        List.of(actor(test, "size"), actor(test, "poll"), actor(test, "poll")));
  }

  /**
   * Counts racing a step of the clock and a {@code done} that promotes only its own key when
   * it is due: {@code size} and {@code waitingCount} must count at one clock reading. They
   * once promoted what was due and then counted in a second hold of the lock, so a count
   * taken after the step saw key 3 promoted by the {@code done} and key 2 still waiting.
   */
  @Test
  void modelChecking_countsRacingAStepAndAPromotionOfOneKey() throws NoSuchMethodException {
    Class<?> test = getClass();
    QueueLincheckHarness.checkRace(test, spec(),
        List.of(actor(test, "addAfter", 2), actor(test, "addAfter", 3)),
        List.of(List.of(actor(test, "step"), actor(test, "done", 3)),
            List.of(actor(test, "size"), actor(test, "waitingCount"))),
        List.of(actor(test, "size"), actor(test, "waitingCount")));
  }

  static Actor actor(Class<?> test, String operation, Object... args)
      throws NoSuchMethodException {
    return QueueLincheckHarness.actor(test, operation, args);
  }

  @Test
  void stress() {
    LincheckRuns.stress(spec(), 10, 300).check(getClass());
  }
}
