package dev.workqueue.lincheck;

import dev.workqueue.WorkQueue;
import dev.workqueue.testsupport.LincheckRuns;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Test;

/**
 * The Lincheck harness of the work queue's non-blocking operations ({@code add}, {@code poll},
 * {@code done}, {@code size}), for any ready order: a subclass names the queue and the
 * sequential specification it is checked against, and redeclares the {@code key} parameter
 * (Lincheck reads it from the concrete class). Keys come from a small set so that scenarios
 * re-add, hand out and finish the same keys: Lincheck calls {@code done} for keys that were
 * never handed out, too, which the queue must ignore exactly as the model does. Four keys are
 * added before the parallel part, so that orders show (the fair order's turns need a value
 * with two keys queued beside a key of another).
 *
 * <p><b>What is not checked here.</b> The blocking {@link WorkQueue#get()} (and a
 * {@code poll} with a positive timeout) cannot be expressed in Lincheck's model for
 * non-blocking data structures: an operation that parks until another thread acts has no
 * sequential specification (sequentially, {@code get} on an empty queue never returns).
 * Lincheck models waiting only as the suspension of a Kotlin coroutine; a Java thread parked on
 * a {@code Condition} would be reported as a deadlock or a hung invocation.
 * {@code poll(Duration.ZERO)} is the same take without the wait, so it stands in for
 * {@code get}; the waiting and waking are covered by {@code QueueStressTest} and the unit
 * tests. Shutdown is left out here to keep the state space small; {@link
 * DelayingQueueLincheckTest} includes it. Lincheck checks linearizability, not the memory
 * model: the publication of a merged add is checked by the jcstress tests.
 *
 * <p>Scenarios are small and the run counts low, so each check takes seconds in {@code mvn
 * verify}; {@code STRESS_SCALE} (see {@link StressScale}) multiplies the iterations for a
 * longer search when changing the queue.
 */
@Param(name = "key", gen = IntGen.class, conf = "1:4")
public abstract class QueueLincheckHarness {
  /**
   * The interleavings model checking explores for each hand-written race scenario of the queue
   * tests: 300 in the default build, times {@link StressScale} ({@code mvn verify -Plong}: 3,000).
   * Each known defect such a scenario was written for failed it within 1,000 (each checked with
   * the defect put back), which the default build no longer reaches: these scenarios took most
   * of the build's time (a minute each on 2 loaded cores). Run {@code -Plong} (or {@code
   * STRESS_SCALE} of 4 or more) after changing a queue.
   */
  static final int RACE_INVOCATIONS = 300 * StressScale.factor();

  private final WorkQueue<Integer> queue;
  private final Class<?> spec;

  /** Checks {@code queue} against {@code spec}. */
  QueueLincheckHarness(WorkQueue<Integer> queue, Class<?> spec) {
    this.queue = queue;
    this.spec = spec;
  }

  @Operation
  public void add(@Param(name = "key") int key) {
    queue.add(key);
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

  @Test
  void modelChecking() {
    LincheckRuns.modelChecking(spec, 2, 100).actorsBefore(4) // 4 iterations before the time cut
        .check(getClass());
  }

  /**
   * The race a generated scenario rarely hits: the worker's {@code done} of an item (which takes
   * no lock on a queue without metrics) against another thread's {@code add} of it. Model
   * checking explores {@link #RACE_INVOCATIONS} interleavings of this one scenario; in each, the
   * item is queued once afterwards.
   */
  @Test
  void modelChecking_doneRacingAnAddOfItsItem() throws NoSuchMethodException {
    checkDoneRacingAnAdd(getClass(), spec);
  }

  /**
   * Model-checks {@code test}'s operations {@code add(int)}, {@code poll()}, {@code done(int)}
   * and {@code size()} on the one scenario: key 1 added and handed out, then its {@code done}
   * against an {@code add} of it, then {@code size} and {@code poll}. For every queue kind's
   * Lincheck test.
   */
  static void checkDoneRacingAnAdd(Class<?> test, Class<?> spec) throws NoSuchMethodException {
    Actor add = actor(test, "add", 1);
    checkRace(test, spec,
        List.of(add, actor(test, "poll")),
        List.of(List.of(actor(test, "done", 1)), List.of(add)),
        List.of(actor(test, "size"), actor(test, "poll")));
  }

  /**
   * The races of an add of a new item: on a FIFO queue without metrics it takes no lock (the
   * entry goes into the map unpublished, onto the intake, then is published). Two adds of key
   * 1, which is not in the queue, race each other, a {@code poll} and a {@code size}: the one
   * that finds the other's entry unpublished must neither return before the item is queued
   * nor queue it twice. For every queue kind's Lincheck test.
   */
  @Test
  void modelChecking_addsOfANewItemRacingATake() throws NoSuchMethodException {
    checkAddsOfANewItemRacingATake(getClass(), spec);
  }

  static void checkAddsOfANewItemRacingATake(Class<?> test, Class<?> spec)
      throws NoSuchMethodException {
    Actor add = actor(test, "add", 1);
    checkRace(test, spec,
        List.of(actor(test, "add", 2)),
        List.of(List.of(add, actor(test, "size")), List.of(add, actor(test, "poll")),
            List.of(actor(test, "poll"), actor(test, "size"))),
        List.of(actor(test, "poll"), actor(test, "size")));
  }

  /**
   * Model-checks one hand-written race scenario of {@code test}'s operations against {@code
   * spec}: {@code init} runs first on one thread, then each list of {@code parallel} on a thread
   * of its own, then {@code post}. Explores {@link #RACE_INVOCATIONS} interleavings.
   */
  static void checkRace(Class<?> test, Class<?> spec, List<Actor> init,
      List<List<Actor>> parallel, List<Actor> post) {
    LincheckRuns.modelChecking(spec, 0, RACE_INVOCATIONS)
        .addCustomScenario(new ExecutionScenario(init, parallel, post, null)).check(test);
  }

  static Actor actor(Class<?> test, String operation, Object... args)
      throws NoSuchMethodException {
    Class<?>[] types = new Class<?>[args.length];
    Arrays.fill(types, int.class);
    return new Actor(test.getMethod(operation, types), List.of(args),
        false, false, false, false, false);
  }

  @Test
  void stress() {
    LincheckRuns.stress(spec, 20, 300).actorsBefore(4)
        .check(getClass());
  }
}
