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
 * Linearizability of {@link DelayingQueue}'s non-blocking operations, checked by Lincheck
 * against {@link DelayingQueueSpec}, on a {@link FakeClock} that never moves during a
 * scenario: {@code addAfter} and {@code reschedule} with a positive delay must never make an
 * item visible to {@code poll} or {@code size}; {@code addAfter(key, Duration.ZERO)} must act
 * exactly like {@code add}; {@code cancel} reports whether the key was waiting;
 * {@code waitingCount} counts the waiting keys. The clock starts just below
 * {@link Long#MAX_VALUE}, so every ready time wraps: an overflow in the time arithmetic would
 * show as an item made visible too early. {@code shutDown} (at most once per scenario) must
 * discard the waiting keys and make later adds no-ops, while queued keys are still handed out.
 *
 * <p>As in {@link WorkQueueLincheckTest}, the blocking {@code get} has no place in Lincheck's
 * model of non-blocking operations (sequentially, a {@code get} on an empty queue never
 * returns), so {@code poll(Duration.ZERO)} stands in for it. Promotion of due items on the
 * clock's wake-up is not exercised here (time does not move); {@code DelayingQueueTest} and
 * {@code QueueStressTest} cover it.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
public class DelayingQueueLincheckTest {
  private static final Duration LATER = Duration.ofMinutes(5);

  private final FakeClock clock = new FakeClock(Long.MAX_VALUE - 1_000);
  private final DelayingQueue<Integer> queue = build(WorkQueue.<Integer>builder().clock(clock));

  /**
   * The queue under test, from a builder on the scenario's clock; {@link
   * DelayingQueueCrowdedLincheckTest} builds it crowded. (Called while this instance is being
   * built: it may use only {@code b}.)
   */
  protected DelayingQueue<Integer> build(WorkQueueBuilder<Integer> b) {
    return b.buildDelaying();
  }

  @Operation
  public void add(@Param(name = "key") int key) {
    queue.add(key);
  }

  @Operation
  public void addAfter(@Param(name = "key") int key) {
    queue.addAfter(key, LATER);
  }

  @Operation
  public void reschedule(@Param(name = "key") int key) {
    queue.reschedule(key, LATER);
  }

  @Operation
  public void addAfterZero(@Param(name = "key") int key) {
    queue.addAfter(key, Duration.ZERO);
  }

  @Operation
  public boolean cancel(@Param(name = "key") int key) {
    return queue.cancel(key);
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

  @Operation(runOnce = true)
  public void shutDown() {
    queue.shutDown();
  }

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(DelayingQueueSpec.class, 2, 100) // 4 before the time cut
        .check(getClass());
  }

  @Test
  void modelChecking_doneRacingAnAddOfItsItem() throws NoSuchMethodException {
    QueueLincheckHarness.checkDoneRacingAnAdd(getClass(), DelayingQueueSpec.class);
  }

  @Test
  void modelChecking_addsOfANewItemRacingATake() throws NoSuchMethodException {
    QueueLincheckHarness.checkAddsOfANewItemRacingATake(getClass(), DelayingQueueSpec.class);
  }

  /**
   * An add that takes no lock against {@code shutDown}, which closes the FIFO's intake: the
   * add either lands before the shutdown (and is handed out) or is dropped, never queued after
   * a take has seen the queue shut down and empty.
   */
  @Test
  void modelChecking_addRacingShutDown() throws NoSuchMethodException {
    Class<?> test = getClass();
    QueueLincheckHarness.checkRace(test, DelayingQueueSpec.class,
        List.of(),
        List.of(List.of(actor(test, "add", 1), actor(test, "size")),
            List.of(actor(test, "shutDown"), actor(test, "poll")),
            List.of(actor(test, "poll"), actor(test, "add", 2))),
        List.of(actor(test, "poll"), actor(test, "size")));
  }

  static Actor actor(Class<?> test, String operation, Object... args)
      throws NoSuchMethodException {
    return QueueLincheckHarness.actor(test, operation, args);
  }

  @Test
  void stress() {
    LincheckRuns.stress(DelayingQueueSpec.class, 10, 300)
        .check(getClass());
  }
}
