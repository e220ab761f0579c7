package dev.workqueue.clock;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class FakeClockTest {
  private final FakeClock clock = new FakeClock();

  @Test
  void step_runsDueWakeupsInDeadlineOrder_andLeavesTheRest() {
    List<String> ran = new ArrayList<>();
    clock.schedule(30, () -> ran.add("30"));
    clock.schedule(10, () -> ran.add("10a"));
    clock.schedule(20, () -> ran.add("20"));
    clock.schedule(10, () -> ran.add("10b"));
    clock.step(Duration.ofNanos(20));
    assertEquals(List.of("10a", "10b", "20"), ran, "deadline order, ties in scheduling order");
    assertEquals(1, clock.pendingWakeups());
    assertEquals(30L, clock.nextWakeup());
    clock.step(Duration.ofNanos(10));
    assertEquals(List.of("10a", "10b", "20", "30"), ran);
    assertFalse(clock.hasWaiters());
    assertNull(clock.nextWakeup());
  }

  @Test
  void step_runsWakeupsScheduledByWakeupsForATimeAlreadyReached() {
    List<Long> ran = new ArrayList<>();
    clock.schedule(5, () -> {
      ran.add(clock.nanoTime());
      clock.schedule(7, () -> ran.add(-7L));
      clock.schedule(50, () -> ran.add(-50L));
    });
    clock.step(Duration.ofNanos(10));
    assertEquals(List.of(10L, -7L), ran);
    assertEquals(1, clock.pendingWakeups());
  }

  @Test
  void aWakeupScheduledForAReachedTimeOutsideAStep_runsAtTheNextStep() {
    clock.step(Duration.ofNanos(100));
    List<String> ran = new ArrayList<>();
    clock.schedule(50, () -> ran.add("late"));
    assertEquals(List.of(), ran, "never in the caller of schedule");
    clock.step(Duration.ZERO);
    assertEquals(List.of("late"), ran);
  }

  @Test
  void cancel_beforeTheDeadline_preventsTheRun_andReportsWhetherItDid() {
    List<String> ran = new ArrayList<>();
    Cancellable c = clock.schedule(10, () -> ran.add("x"));
    assertTrue(c.cancel());
    assertFalse(c.cancel(), "second cancel");
    clock.step(Duration.ofNanos(10));
    assertEquals(List.of(), ran);
    Cancellable done = clock.schedule(20, () -> ran.add("y"));
    clock.step(Duration.ofNanos(10));
    assertFalse(done.cancel(), "already ran");
    assertEquals(List.of("y"), ran);
  }

  @Test
  void setTime_backwardsMakesNothingDue_forwardsRunsWhatIsDue() {
    List<String> ran = new ArrayList<>();
    clock.setTime(1_000);
    clock.schedule(1_500, () -> ran.add("x"));
    clock.setTime(10);
    assertEquals(10, clock.nanoTime());
    assertEquals(List.of(), ran);
    clock.setTime(1_500);
    assertEquals(List.of("x"), ran);
  }

  @Test
  void wrapsAroundLongMaxValue_comparingReadingsByDifference() {
    FakeClock near = new FakeClock(Long.MAX_VALUE - 5);
    List<String> ran = new ArrayList<>();
    near.schedule(Long.MAX_VALUE + 5, () -> ran.add("after wrap")); // wraps to negative
    near.step(Duration.ofNanos(5));
    assertEquals(List.of(), ran);
    near.step(Duration.ofNanos(5));
    assertEquals(List.of("after wrap"), ran);
  }

  @Test
  void step_rejectsANegativeDuration_namingIt() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> clock.step(Duration.ofNanos(-1)));
    assertTrue(e.getMessage().contains("d"), e.getMessage());
    assertEquals(0, clock.nanoTime());
  }

  @Test
  void awaitUntil_aReachedDeadlineReturnsAtOnce_withoutScheduling() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    Condition c = lock.newCondition();
    clock.setTime(100);
    lock.lock();
    try {
      assertEquals(-20, clock.awaitUntil(lock, c, 80));
    } finally {
      lock.unlock();
    }
    assertEquals(0, clock.pendingWakeups());
  }

  @Test
  void awaitUntil_wakesAtTheDeadline_andCancelsItsWakeupWhenSignalledEarly() throws Exception {
    ReentrantLock lock = new ReentrantLock();
    Condition c = lock.newCondition();
    AtomicReference<Long> left = new AtomicReference<>();
    Thread waiter = waiter(lock, c, 1_000, true, left);
    waiter.start();
    awaitPendingWakeups(1);
    clock.step(Duration.ofNanos(999));
    assertTrue(waiter.isAlive(), "not before the deadline");
    clock.step(Duration.ofNanos(1));
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertFalse(waiter.isAlive(), "woken by the step that reached the deadline");
    assertEquals(0L, left.get());

    Thread early = waiter(lock, c, 5_000, false, left);
    early.start();
    awaitPendingWakeups(1);
    lock.lock();
    try {
      c.signalAll();
    } finally {
      lock.unlock();
    }
    early.join(TimeUnit.SECONDS.toMillis(10));
    assertFalse(early.isAlive());
    assertEquals(4_000L, left.get());
    assertEquals(0, clock.pendingWakeups(), "the early-woken wait cancelled its wake-up");
  }

  /**
   * A step that lands between a waiter's reading of the time and the scheduling of its
   * wake-up must still end the wait: the step has already run everything due, so a wake-up
   * scheduled after it for a reached deadline would otherwise wait for the next step, and a
   * test that steps once and then waits for the effect hangs. Each round the stepper steps as
   * soon as the waiter is about to wait; a lost wake-up stalls both, which the join reports.
   */
  @Test
  void awaitUntil_neverMissesAStepThatRacesItsScheduling() throws Exception {
    int rounds = 20_000 * StressScale.factor();
    ReentrantLock lock = new ReentrantLock();
    Condition c = lock.newCondition();
    AtomicLong about = new AtomicLong();
    Thread waiter = new Thread(() -> {
      try {
        for (long i = 1; i <= rounds; i++) {
          lock.lock();
          try {
            about.set(i); // the stepper may step from here on
            while (i - clock.nanoTime() > 0) {
              clock.awaitUntil(lock, c, i);
            }
          } finally {
            lock.unlock();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "fake-clock-waiter");
    waiter.setDaemon(true);
    waiter.start();
    for (long i = 1; i <= rounds; i++) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); // per round: a stall
      while (about.get() < i) {
        if (System.nanoTime() - deadline > 0) {
          waiter.interrupt();
          throw new AssertionError("lost wake-up: the waiter is stuck waiting for " + (i - 1)
              + " at time " + clock.nanoTime());
        }
        Thread.onSpinWait();
      }
      clock.step(Duration.ofNanos(1));
    }
    waiter.join(TimeUnit.SECONDS.toMillis(10));
    assertFalse(waiter.isAlive(), "lost wake-up in the last round");
    assertEquals(0, clock.pendingWakeups(), "every wait cancelled or ran its wake-up");
  }

  /**
   * A thread that waits on {@code c} until the fake clock reaches {@code deadline} (looping
   * over early returns, as callers must, if {@code untilDeadline}; else once) and puts the last
   * estimate of what is left into {@code left}.
   */
  private Thread waiter(ReentrantLock lock, Condition c, long deadline, boolean untilDeadline,
      AtomicReference<Long> left) {
    return new Thread(() -> {
      lock.lock();
      try {
        long l;
        do {
          l = clock.awaitUntil(lock, c, deadline);
        } while (untilDeadline && l > 0);
        left.set(l);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        lock.unlock();
      }
    }, "fake-clock-waiter");
  }

  private void awaitPendingWakeups(int n) {
    await().atMost(10, TimeUnit.SECONDS).until(() -> clock.pendingWakeups() >= n);
  }
}
