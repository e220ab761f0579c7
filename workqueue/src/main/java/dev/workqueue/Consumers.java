package dev.workqueue;

import dev.workqueue.clock.Clock;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The consumers that wait on a queue, and every wake-up they get: who waits, who leads, who is
 * signalled. Guarded by the queue's lock, except {@link #waiters}, which an add without the lock
 * reads.
 *
 * <p><b>Leader and followers</b> (as {@link java.util.concurrent.DelayQueue}). While items wait
 * for a delay, one waiting consumer, the <em>leader</em>, parks only until the head's ready
 * time; the others wait until signalled. A consumer that stops leading hands the lead to a
 * follower ({@link #handLeadOver}), and one that releases several due items wakes one follower
 * per item beyond its own ({@link #wake}): at most one wake-up per delivered item, and no
 * spinning while items wait.
 *
 * <p><b>Wake only when needed</b> (DESIGN rule 5). An add signals only while a consumer waits.
 * An add without the lock ({@link IntakeAdds}) reads {@link #waiters} after its push onto the
 * FIFO's intake, and a consumer counts itself in before it looks at the intake ({@link
 * #nothingOffered}): one of the two sees the other, so no wake-up is lost.
 */
final class Consumers {
  /**
   * How many times a consumer spins watching the intake before it parks ({@link #spinForAnAdd});
   * no spinning on one processor, where the producer cannot run meanwhile.
   */
  private static final int SPINS_BEFORE_PARKING =
      Runtime.getRuntime().availableProcessors() > 1 ? 128 : 0;

  private final ReentrantLock lock;
  private final Condition notEmpty;
  private final Clock clock;
  /** The FIFO's intake, if adds may push onto it without the lock; else null. */
  private final FifoOrder.Intake<?> intake;
  /**
   * Consumers waiting on {@link #notEmpty}, the leader included while it waits. Written under the
   * lock; volatile for the add that skips the lock.
   */
  private volatile int waiters;
  /** The consumer waiting until the head's ready time, or null. */
  private Thread leader;

  Consumers(ReentrantLock lock, Clock clock, FifoOrder.Intake<?> intake) {
    this.lock = lock;
    this.notEmpty = lock.newCondition();
    this.clock = clock;
    this.intake = intake;
  }

  /** Without the lock too: whether a consumer waits on the condition. */
  boolean anyWaiting() {
    return waiters > 0;
  }

  /** Whether a consumer waits or leads: the consumers then release what falls due. */
  boolean anyWaitingOrLeading() {
    return leader != null || waiters > 0;
  }

  boolean hasLeader() {
    return leader != null;
  }

  /** Signals one waiting consumer, if any. */
  void signal() {
    if (waiters > 0) {
      notEmpty.signal();
    }
  }

  /** Signals one waiting consumer; the caller knows one waits (or does not mind a lost signal). */
  void signalOne() {
    notEmpty.signal();
  }

  /** Without the lock: takes it and signals one waiting consumer, if one still waits. */
  void lockAndSignal() {
    lock.lock();
    try {
      signal();
    } finally {
      lock.unlock();
    }
  }

  /** Signals up to {@code n} waiting consumers; returns how many. */
  int wake(int n) {
    int k = Math.min(n, waiters);
    for (int i = 0; i < k; i++) {
      notEmpty.signal();
    }
    return k;
  }

  void wakeAll() {
    notEmpty.signalAll();
  }

  /**
   * The head of the waiting room changed (or the first item waits): a leader waiting for the old
   * head may wait too long, and followers wait for no time at all, so one is woken to lead for
   * the new head. False if no consumer waits (the caller arms its metrics wake-up instead).
   */
  boolean headChanged() {
    if (waiters == 0) {
      return false;
    }
    leader = null;
    notEmpty.signal();
    return true;
  }

  /**
   * At the end of a take while items wait and no consumer leads: hands the lead to a waiting
   * consumer, unless this take {@code signalled} one already. False if none waits.
   */
  boolean handLeadOver(boolean signalled) {
    if (waiters == 0) {
      return false;
    }
    if (!signalled) {
      notEmpty.signal();
    }
    return true;
  }

  /** Waits as the leader until {@code wakeAt}, or until signalled. */
  void awaitAsLeader(long wakeAt) throws InterruptedException {
    Thread me = Thread.currentThread();
    leader = me;
    waiters++;
    try {
      if (nothingOffered()) {
        clock.awaitUntil(lock, notEmpty, wakeAt);
      }
    } finally {
      waiters--;
      if (leader == me) {
        leader = null;
      }
    }
  }

  /** Waits as a follower until signalled, or (if {@code timed}) until {@code deadline}. */
  void await(boolean timed, long deadline) throws InterruptedException {
    waiters++;
    try {
      if (nothingOffered()) {
        if (timed) {
          clock.awaitUntil(lock, notEmpty, deadline);
        } else {
          notEmpty.await();
        }
      }
    } finally {
      waiters--;
    }
  }

  /**
   * Read after a consumer counted itself in {@link #waiters}: whether no add without the lock
   * pushed an entry that it may not signal for (it read {@link #waiters} before the count).
   */
  private boolean nothingOffered() {
    return intake == null || !intake.holdsEntries();
  }

  /**
   * Before a consumer parks on an empty FIFO queue that producers add to without the lock: it
   * lets the lock go and spins briefly, watching the intake. A producer that adds meanwhile
   * needs no lock to wake a parked consumer, and the consumer skips a park and an unpark, each
   * costlier than the hand-off itself. Once per wait of a {@code get}, a few microseconds.
   *
   * <p>It does not {@code Thread.yield()}: on Linux's EEVDF scheduler a yield moves the
   * yielder's deadline a whole slice later, so a consumer that shares its processor with a
   * thread that never blocks (producers whose adds merge without the lock, in an add storm)
   * gave the processor away for milliseconds at a time: 16 yields here held the add storm's
   * consumer to 0.22 M/s, against 2.79 M/s without them (JMH, 2026-11-24).
   */
  void spinForAnAdd() {
    lock.unlock();
    try {
      for (int i = 0; i < SPINS_BEFORE_PARKING && !intake.holdsEntries(); i++) {
        Thread.onSpinWait();
      }
    } finally {
      lock.lock();
    }
  }
}
