package dev.workqueue.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/** The system clock's waits: a short one spins with the lock released, a long one parks. */
class SystemClockTest {

  /** A lock that counts its acquisitions and releases. */
  private static final class CountingLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;
    int locks;
    int unlocks;

    @Override
    public void lock() {
      locks++;
      super.lock();
    }

    @Override
    public void unlock() {
      unlocks++;
      super.unlock();
    }
  }

  @Test
  void spin_releasesTheLockWhileItWaits_andReturnsHoldingItOnceTheDeadlineIsReached()
      throws Exception {
    CountingLock lock = new CountingLock();
    lock.lock();
    long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(100);
    long left = SystemClock.spinUntil(lock, deadline);
    assertTrue(left <= 0, "returns once the deadline is reached: " + left);
    assertTrue(System.nanoTime() - deadline >= 0);
    assertEquals(1, lock.unlocks, "released while it spins, as a condition wait releases it");
    assertEquals(2, lock.locks);
    assertTrue(lock.isHeldByCurrentThread());
  }

  @Test
  void spin_ofAnInterruptedThread_throws_withTheLockHeld() {
    CountingLock lock = new CountingLock();
    lock.lock();
    Thread.currentThread().interrupt();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    assertThrows(InterruptedException.class, () -> SystemClock.spinUntil(lock, deadline));
    assertTrue(lock.isHeldByCurrentThread());
    assertEquals(0, lock.unlocks, "an interrupt seen first: the lock is never let go");
  }

  @Test
  void longWait_parksOnTheCondition_soASignalEndsItEarly() throws Exception {
    Clock clock = Clock.system();
    ReentrantLock lock = new ReentrantLock();
    Condition condition = lock.newCondition();
    CompletableFuture<Long> left = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      lock.lock();
      try {
        left.complete(clock.awaitUntil(lock, condition,
            clock.nanoTime() + TimeUnit.SECONDS.toNanos(60)));
      } catch (InterruptedException e) {
        left.completeExceptionally(e);
      } finally {
        lock.unlock();
      }
    });
    waiter.start();
    while (!left.isDone()) { // until the waiter is on the condition and the signal reaches it
      lock.lock();
      try {
        if (lock.hasWaiters(condition)) {
          condition.signal();
        }
      } finally {
        lock.unlock();
      }
      Thread.onSpinWait();
    }
    assertTrue(left.get() > 0, "signalled well before its deadline: time was left");
    waiter.join();
  }
}
