package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Bad input and calls out of order, as a table: each row is a call on a fresh
 * {@link RateLimitingQueue} (running, or shut down first), run against both the client-go queue
 * and the {@link PriorityWorkQueue} (which is one), plus rows for the priority queue's own
 * calls; the documented result (an exception
 * whose message names the argument, a return value, or a no-op with the state it leaves), and
 * then the check that the queue still works: a fresh item can be added and taken while the
 * queue runs, and nothing comes back to life once it is shut down.
 *
 * <p>Every row runs on a {@link FakeClock} that moves only when a row steps it, and under a
 * 10 s guard, so a call that should return at once and instead blocks fails the row rather
 * than hanging the build.
 */
class BadInputTest {
  private static final Object VOID = new Object() {
    @Override
    public String toString() {
      return "(void)";
    }
  };
  private static final Duration HUGE = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
  private static final Duration HUGE_NEGATIVE = Duration.ofSeconds(Long.MIN_VALUE);
  private static final Duration HUNDRED_YEARS = Duration.ofDays(36_525);

  /**
   * A queue on a fake clock with a limiter that answers 10 ms and counts its calls: a plain
   * rate-limiting queue, or a priority queue.
   */
  static final class Fixture {
    final FakeClock clock = new FakeClock();
    int limiterCalls;
    final RateLimiter<String> limiter = new RateLimiter<>() {
      @Override
      public Duration when(String item) {
        limiterCalls++;
        return Duration.ofMillis(10);
      }

      @Override
      public void forget(String item) {}

      @Override
      public int numRequeues(String item) {
        return 0;
      }
    };
    final RateLimitingQueue<String> q;

    Fixture(boolean priority) {
      WorkQueueBuilder<String> b = WorkQueue.<String>builder().clock(clock);
      q = priority ? b.buildPriority(limiter) : b.buildRateLimiting(limiter);
    }

    /** The queue as a priority queue; only in {@link #priorityRows()}. */
    PriorityWorkQueue<String> pq() {
      return (PriorityWorkQueue<String>) q;
    }

    Optional<String> take() throws InterruptedException {
      return q.poll(Duration.ZERO);
    }

    /** Takes and finishes everything queued now, in order. */
    List<String> drain() throws InterruptedException {
      List<String> out = new ArrayList<>();
      for (Optional<String> next = take(); next.isPresent(); next = take()) {
        out.add(next.get());
        q.done(next.get());
      }
      return out;
    }
  }

  @FunctionalInterface
  interface Step {
    void run(Fixture f) throws Exception;
  }

  @FunctionalInterface
  interface Call {
    Object run(Fixture f) throws Exception;
  }

  /** What a row expects: an exception, or a return value and then a check of the state. */
  record Expect(Class<? extends Throwable> thrown, String message, Object returned, Step check) {}

  record Row(String name, Step setup, Call call, Expect expect) {}

  private static Expect npe(String argument) {
    return new Expect(NullPointerException.class, argument + " must not be null", null, f -> {});
  }

  private static Expect returns(Object value, Step check) {
    return new Expect(null, null, value, check);
  }

  private static Expect noOp(Step check) {
    return returns(VOID, check);
  }

  private static Call v(Step step) {
    return f -> {
      step.run(f);
      return VOID;
    };
  }

  private static final Step RUNNING = f -> {};
  private static final Step SHUT_DOWN = f -> f.q.shutDown();

  private static Step empty() {
    return f -> {
      assertEquals(0, f.q.size(), "size");
      assertEquals(0, f.q.waitingCount(), "waitingCount");
      assertEquals(List.of(), f.drain());
    };
  }

  private static Step queuedNow(String... items) {
    return f -> {
      assertEquals(0, f.q.waitingCount(), "waitingCount");
      assertEquals(List.of(items), f.drain());
    };
  }

  private static Step waitsStill(String item, Duration after) {
    return f -> {
      assertEquals(1, f.q.waitingCount(), "waitingCount");
      assertEquals(0, f.q.size(), "size");
      f.clock.step(after);
      assertEquals(List.of(), f.drain(), item + " must still wait after " + after);
      assertEquals(1, f.q.waitingCount(), "waitingCount");
    };
  }

  static List<Row> rows() {
    Duration second = Duration.ofSeconds(1);
    return List.of(
        // ---- null arguments: NullPointerException naming the argument, state unchanged ----
        new Row("add(null)", RUNNING, v(f -> f.q.add(null)), npe("item")),
        new Row("done(null)", RUNNING, v(f -> f.q.done(null)), npe("item")),
        new Row("addAfter(null, 1s)", RUNNING, v(f -> f.q.addAfter(null, second)), npe("item")),
        new Row("addAfter(x, null)", RUNNING, v(f -> f.q.addAfter("x", null)), npe("delay")),
        new Row("reschedule(null, 1s)", RUNNING, v(f -> f.q.reschedule(null, second)), npe("item")),
        new Row("reschedule(x, null)", RUNNING, v(f -> f.q.reschedule("x", null)), npe("delay")),
        new Row("cancel(null)", RUNNING, f -> f.q.cancel(null), npe("item")),
        new Row("poll(null)", RUNNING, f -> f.q.poll(null), npe("timeout")),
        new Row("shutDownWithDrain(null) does not shut down", RUNNING,
            f -> f.q.shutDownWithDrain(null), npe("timeout")),
        new Row("addRateLimited(null)", RUNNING, v(f -> f.q.addRateLimited(null)), npe("item")),
        new Row("forget(null)", RUNNING, v(f -> f.q.forget(null)), npe("item")),
        new Row("numRequeues(null)", RUNNING, f -> f.q.numRequeues(null), npe("item")),
        new Row("add(null) after shutDown", SHUT_DOWN, v(f -> f.q.add(null)), npe("item")),
        new Row("addAfter(x, null) after shutDown", SHUT_DOWN,
            v(f -> f.q.addAfter("x", null)), npe("delay")),

        // ---- negative and huge durations ----
        new Row("addAfter(x, -1s) adds now", RUNNING,
            v(f -> f.q.addAfter("x", Duration.ofSeconds(-1))), noOp(queuedNow("x"))),
        new Row("addAfter(x, ofSeconds(Long.MIN_VALUE)) adds now", RUNNING,
            v(f -> f.q.addAfter("x", HUGE_NEGATIVE)), noOp(queuedNow("x"))),
        new Row("addAfter(x, ofSeconds(Long.MAX_VALUE)) waits, clamped, no overflow", RUNNING,
            v(f -> f.q.addAfter("x", HUGE)), noOp(waitsStill("x", HUNDRED_YEARS))),
        new Row("addAfter(x, huge) near Long.MAX_VALUE on the clock still waits",
            f -> f.clock.setTime(Long.MAX_VALUE - 5),
            v(f -> f.q.addAfter("x", HUGE)), noOp(waitsStill("x", HUNDRED_YEARS))),
        new Row("reschedule(x, huge) postpones a waiting x", f -> f.q.addAfter("x", second),
            v(f -> f.q.reschedule("x", HUGE)), noOp(waitsStill("x", HUNDRED_YEARS))),
        new Row("reschedule(x, -1s) moves a waiting x to the queue now",
            f -> f.q.addAfter("x", second),
            v(f -> f.q.reschedule("x", Duration.ofSeconds(-1))), noOp(queuedNow("x"))),
        new Row("poll(-1s) on an empty queue returns empty at once", RUNNING,
            f -> f.q.poll(Duration.ofSeconds(-1)), returns(Optional.empty(), empty())),
        new Row("poll(ofSeconds(Long.MAX_VALUE)) takes a queued item at once",
            f -> f.q.add("x"), f -> f.q.poll(HUGE), returns(Optional.of("x"), f -> {
              assertEquals(List.of(), f.drain());
              f.q.done("x");
            })),
        new Row("poll(1s) on an empty queue times out when the clock passes 1s", RUNNING,
            f -> {
              Thread stepper = new Thread(() -> {
                while (f.clock.pendingWakeups() == 0) {
                  Thread.onSpinWait(); // until the poll has armed its timeout
                }
                f.clock.step(Duration.ofSeconds(1));
              });
              stepper.setDaemon(true); // a failing row must not leave it spinning
              stepper.start();
              Optional<String> result = f.q.poll(Duration.ofSeconds(1));
              stepper.join();
              return result;
            }, returns(Optional.empty(), empty())),

        // ---- calls out of order on a running queue ----
        new Row("done(x) without get is ignored", RUNNING, v(f -> f.q.done("x")), noOp(empty())),
        new Row("done(x) for a queued x is ignored: x stays queued once",
            f -> f.q.add("x"), v(f -> f.q.done("x")), noOp(queuedNow("x"))),
        new Row("second done(x) after one get is ignored", f -> {
              f.q.add("x");
              f.q.done(f.take().orElseThrow());
            }, v(f -> f.q.done("x")), noOp(empty())),
        new Row("cancel(x) when x is not waiting returns false", RUNNING,
            f -> f.q.cancel("x"), returns(false, empty())),
        new Row("cancel(x) for a queued x returns false and leaves it queued",
            f -> f.q.add("x"), f -> f.q.cancel("x"), returns(false, queuedNow("x"))),
        new Row("cancel(x) for a waiting x returns true and removes it",
            f -> f.q.addAfter("x", second), f -> f.q.cancel("x"), returns(true, f -> {
              f.clock.step(Duration.ofHours(1));
              assertEquals(List.of(), f.drain());
              assertEquals(0, f.q.waitingCount());
            })),

        // ---- after shutdown: documented no-ops; processing items still finish ----
        new Row("add after shutDown is ignored", SHUT_DOWN, v(f -> f.q.add("x")), noOp(empty())),
        new Row("addAfter(x, 1s) after shutDown is ignored", SHUT_DOWN,
            v(f -> f.q.addAfter("x", second)), noOp(empty())),
        new Row("addAfter(x, 0) after shutDown is ignored", SHUT_DOWN,
            v(f -> f.q.addAfter("x", Duration.ZERO)), noOp(empty())),
        new Row("reschedule after shutDown is ignored", SHUT_DOWN,
            v(f -> f.q.reschedule("x", second)), noOp(empty())),
        new Row("addRateLimited after shutDown is ignored and does not ask the limiter", SHUT_DOWN,
            v(f -> f.q.addRateLimited("x")), noOp(f -> {
              assertEquals(0, f.limiterCalls, "limiter calls");
              empty().run(f);
            })),
        new Row("cancel after shutDown returns false", SHUT_DOWN,
            f -> f.q.cancel("x"), returns(false, empty())),
        new Row("poll(0) after shutDown returns empty", SHUT_DOWN,
            f -> f.q.poll(Duration.ZERO), returns(Optional.empty(), empty())),
        new Row("poll(1s) after shutDown returns empty at once", SHUT_DOWN,
            f -> f.q.poll(second), returns(Optional.empty(), empty())),
        new Row("get after shutDown returns empty at once", SHUT_DOWN,
            f -> f.q.get(), returns(Optional.empty(), empty())),
        new Row("get after shutDown still hands out what was queued", f -> {
              f.q.add("x");
              f.q.shutDown();
            }, f -> f.q.get(), returns(Optional.of("x"), f -> f.q.done("x"))),
        new Row("unpaired done after shutDown is ignored", SHUT_DOWN,
            v(f -> f.q.done("x")), noOp(empty())),
        new Row("done after shutDown requeues an item re-added while processing", f -> {
              f.q.add("x");
              f.take().orElseThrow();
              f.q.add("x"); // dirty again while processing
              f.q.shutDown();
            }, v(f -> f.q.done("x")), noOp(queuedNow("x"))),
        new Row("shutDown discards waiting items", f -> f.q.addAfter("x", second),
            v(f -> f.q.shutDown()), noOp(f -> {
              assertEquals(0, f.q.waitingCount());
              f.clock.step(Duration.ofHours(1));
              empty().run(f);
            })),
        new Row("shutDown twice is idempotent", SHUT_DOWN, v(f -> f.q.shutDown()), noOp(empty())),
        new Row("shutDownWithDrain() after shutDown returns at once", SHUT_DOWN,
            v(f -> f.q.shutDownWithDrain()), noOp(empty())),
        new Row("shutDownWithDrain(1s) after shutDown reports drained", SHUT_DOWN,
            f -> f.q.shutDownWithDrain(second), returns(true, empty())),
        new Row("shutDownWithDrain(-1s) with an item processing reports not drained", f -> {
              f.q.add("x");
              f.take().orElseThrow();
            }, f -> f.q.shutDownWithDrain(Duration.ofSeconds(-1)), returns(false, f -> {
              f.q.done("x");
              assertTrue(f.q.shutDownWithDrain(Duration.ZERO), "drained after done");
            })));
  }

  /** Calls only a priority queue has, and the checks of its options and builder settings. */
  static List<Row> priorityRows() {
    Duration second = Duration.ofSeconds(1);
    AddOptions none = AddOptions.DEFAULT;
    return List.of(
        new Row("add(null, options)", RUNNING, v(f -> f.pq().add(null, none)), npe("item")),
        new Row("add(x, null)", RUNNING, v(f -> f.pq().add("x", null)), npe("options")),
        new Row("add(x, null) after shutDown", SHUT_DOWN, v(f -> f.pq().add("x", null)),
            npe("options")),
        new Row("pollWithPriority(null)", RUNNING, f -> f.pq().pollWithPriority(null),
            npe("timeout")),
        new Row("new AddOptions(0, null, false)", RUNNING,
            f -> new AddOptions(0, null, false), npe("after")),
        new Row("AddOptions with a negative after", RUNNING,
            f -> none.withAfter(Duration.ofSeconds(-1)),
            new Expect(IllegalArgumentException.class, "after must not be negative, was PT-1S",
                null, f -> {})),
        new Row("builder agingThreshold(0)", RUNNING,
            f -> WorkQueue.<String>builder().agingThreshold(Duration.ZERO),
            new Expect(IllegalArgumentException.class, "threshold must be positive, was PT0S",
                null, f -> {})),
        new Row("builder agingThreshold(null)", RUNNING,
            f -> WorkQueue.<String>builder().agingThreshold(null), npe("threshold")),
        new Row("builder buildPriority(null)", RUNNING,
            f -> WorkQueue.<String>builder().buildPriority(null), npe("limiter")),
        new Row("add(x, Integer.MIN_VALUE and MAX_VALUE priorities) work", RUNNING, v(f -> {
              f.pq().add("low", AddOptions.ofPriority(Integer.MIN_VALUE));
              f.pq().add("high", AddOptions.ofPriority(Integer.MAX_VALUE));
            }), noOp(queuedNow("high", "low"))),
        new Row("add(x, after ofSeconds(Long.MAX_VALUE)) waits, clamped", RUNNING,
            v(f -> f.pq().add("x", none.withAfter(HUGE))),
            noOp(waitsStill("x", HUNDRED_YEARS))),
        new Row("add(x, rateLimited) after shutDown is ignored and does not ask the limiter",
            SHUT_DOWN, v(f -> f.pq().add("x", none.withRateLimited(true))), noOp(f -> {
              assertEquals(0, f.limiterCalls, "limiter calls");
              empty().run(f);
            })),
        new Row("add(x, after 1s) after shutDown is ignored", SHUT_DOWN,
            v(f -> f.pq().add("x", none.withAfter(second))), noOp(empty())),
        new Row("getWithPriority after shutDown returns empty at once", SHUT_DOWN,
            f -> f.pq().getWithPriority(), returns(Optional.empty(), empty())),
        new Row("reschedule(x, 1s) of a ready x leaves it ready", f -> f.q.add("x"),
            v(f -> f.q.reschedule("x", second)), noOp(queuedNow("x"))));
  }

  @TestFactory
  Stream<DynamicTest> everyBadInputHasADocumentedResult_andTheQueueKeepsWorking() {
    Stream<DynamicTest> both = Stream.of(false, true).flatMap(priority -> rows().stream()
        .map(row -> test(row, priority)));
    return Stream.concat(both, priorityRows().stream().map(row -> test(row, true)));
  }

  private static DynamicTest test(Row row, boolean priority) {
    return dynamicTest((priority ? "priority queue: " : "") + row.name(),
        () -> assertTimeoutPreemptively(Duration.ofSeconds(10), () -> check(row, priority)));
  }

  private static void check(Row row, boolean priority) throws Exception {
    Fixture f = new Fixture(priority);
    row.setup().run(f);
    Expect expect = row.expect();
    if (expect.thrown() != null) {
      Throwable t = assertThrows(expect.thrown(), () -> row.call().run(f));
      assertEquals(expect.message(), t.getMessage());
    } else {
      assertEquals(expect.returned(), row.call().run(f));
    }
    expect.check().run(f);
    stillWorks(f);
  }

  /** Running: a fresh item goes in and comes out. Shut down: nothing goes in, get ends. */
  private static void stillWorks(Fixture f) throws Exception {
    f.drain();
    f.q.add("fresh");
    if (f.q.isShuttingDown()) {
      assertEquals(Optional.empty(), f.q.get(), "nothing is added after shutdown");
      assertTrue(f.q.shutDownWithDrain(Duration.ZERO), "a shut-down queue with no work drains");
    } else {
      assertEquals(Optional.of("fresh"), f.take(), "a fresh item is handed out");
      f.q.done("fresh");
      assertEquals(List.of(), f.drain());
      assertFalse(f.q.isShuttingDown());
    }
  }
}
