package dev.workqueue.lincheck;

import dev.workqueue.PriorityItem;
import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.LincheckRuns;
import java.time.Duration;
import java.util.Optional;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Linearizability of {@link PriorityWorkQueue}'s non-blocking operations, checked by Lincheck
 * against {@link PriorityWorkQueueSpec}: adds at three priorities (the plain {@code add} takes
 * the lock-free path when the key is already ready at that priority or higher), delayed adds
 * on a {@link FakeClock} that never moves (so they only ever wait), the non-blocking take
 * reporting key and priority, {@code done} (also unpaired), {@code cancel}, the two counts and
 * a {@code shutDown} at most once per scenario.
 *
 * <p>As in {@link WorkQueueLincheckTest}, {@code pollWithPriority(Duration.ZERO)} stands in for
 * the blocking {@code get}, which has no sequential specification. Promotion when delays end,
 * aging and the rate limiter need time to move; {@code PriorityWorkQueueTest} and
 * {@code PriorityWorkQueueStressTest} cover them.
 *
 * <p>Its operations take more steps than the work queue's, so each iteration costs more; the
 * counts are a little lower than {@link DelayingQueueLincheckTest}'s to keep {@code mvn verify}
 * at seconds. {@code STRESS_SCALE} multiplies them for a longer search.
 */
@Tag("lincheck")
@Param(name = "key", gen = IntGen.class, conf = "1:3")
@Param(name = "priority", gen = IntGen.class, conf = "0:2")
public class PriorityWorkQueueLincheckTest {
  private static final Duration LATER = Duration.ofMinutes(5);

  private final PriorityWorkQueue<Integer> queue = WorkQueue.<Integer>builder()
      .clock(new FakeClock(Long.MAX_VALUE - 1_000))
      .buildPriority(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1)));

  @Operation
  public void add(@Param(name = "key") int key) {
    queue.add(key);
  }

  @Operation
  public void addAt(@Param(name = "key") int key, @Param(name = "priority") int priority) {
    queue.add(key, AddOptions.ofPriority(priority));
  }

  @Operation
  public void addAfter(@Param(name = "key") int key) {
    queue.addAfter(key, LATER);
  }

  /** The non-blocking take: key * 10 + priority, or null when nothing is ready. */
  @Operation
  public Integer poll() throws InterruptedException {
    Optional<PriorityItem<Integer>> taken = queue.pollWithPriority(Duration.ZERO);
    return taken.isEmpty() ? null : taken.get().item() * 10 + taken.get().priority();
  }

  @Operation
  public void done(@Param(name = "key") int key) {
    queue.done(key);
  }

  @Operation
  public boolean cancel(@Param(name = "key") int key) {
    return queue.cancel(key);
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
    LincheckRuns.modelChecking(PriorityWorkQueueSpec.class, 2, 100) // 3 before the time cut
        .check(getClass());
  }

  @Test
  void modelChecking_doneRacingAnAddOfItsItem() throws NoSuchMethodException {
    QueueLincheckHarness.checkDoneRacingAnAdd(getClass(), PriorityWorkQueueSpec.class);
  }

  @Test
  void modelChecking_addsOfANewItemRacingATake() throws NoSuchMethodException {
    QueueLincheckHarness.checkAddsOfANewItemRacingATake(getClass(), PriorityWorkQueueSpec.class);
  }

  @Test
  void stress() {
    LincheckRuns.stress(PriorityWorkQueueSpec.class, 6, 200)
        .check(getClass());
  }
}
