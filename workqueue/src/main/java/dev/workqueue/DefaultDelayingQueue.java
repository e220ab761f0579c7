package dev.workqueue;

import static dev.workqueue.Items.requireArg;
import static dev.workqueue.Items.requireItem;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.Optional;

/**
 * The delaying layer over the basic queue, under the same lock. The waiting room is a {@link
 * DelayHeap}. Nothing runs on a timer to move due items into the queue; instead:
 *
 * <ul>
 *   <li><b>Every operation promotes first.</b> {@code add}, {@code done}, {@code get}, {@code
 *       poll}, {@code size}, {@code addAfter}, {@code cancel}, {@code waitingCount} and
 *       shutdown move every due item into the queue (in ready-time order, one batch) before
 *       doing their own work, so what any caller sees is what it would see had each item been
 *       added at its ready time: the order of the queue, what {@code cancel} finds, whether an
 *       {@code addAfter} merges with a waiting add.
 *   <li><b>Waiting consumers wake themselves</b> (as {@link java.util.concurrent.DelayQueue}
 *       does): while items wait, one waiting consumer, the <em>leader</em>, waits only until
 *       the head's ready time; the others wait until signalled. A consumer that stops leading
 *       (it took an item, timed out or was interrupted) signals another to take over, and an
 *       {@code addAfter} that makes a new, earlier head signals one so that the wait is
 *       shortened. No timer thread and no hand-off between threads sits between an item
 *       becoming due and a waiting consumer taking it. A park oversleeps by tens of
 *       microseconds, so the leader parks until {@link #SPIN_NANOS} before the head and spins
 *       (yielding, the lock released) for the rest; while due times follow closely it never
 *       parks, and producers never need to wake it.
 *   <li><b>A timer only for metrics.</b> A queue with live metrics (a named queue) must move
 *       due items on time even when no consumer comes, so that its depth and adds are right;
 *       it arms one clock wake-up for the head's ready time while items wait and no leader
 *       does (no earlier than 1 ms after a consumer last took an item: that consumer is
 *       likely back before then). A queue without metrics schedules nothing at all.
 * </ul>
 */
class DefaultDelayingQueue<T> extends DefaultWorkQueue<T> implements DelayingQueue<T> {
  /** A leader whose head is due within this spins instead of parking: see {@link #spinUntil}. */
  static final long SPIN_NANOS = 20_000;
  private final DelayHeap<T> waiting = new DelayHeap<>();
  private final boolean addSupersedesDelayed;
  /** The consumer waiting until the head's ready time, or null. */
  private Thread leader;

  /** Whether due items must be promoted on time without consumers: live metrics watch them. */
  private final boolean backstop;
  /**
   * A backstop wake-up comes no earlier than this after a consumer took an item while items
   * waited: that consumer is likely back soon and promotes by itself; the timer is for when
   * none comes. Keeps a busy named queue from arming a timer per item.
   */
  static final long BACKSTOP_GRACE_NANOS = 1_000_000;
  private long lastTake;
  private boolean tookWhileWaiting;
  private final DelayWakeup wakeup = new DelayWakeup(clock, lock, this::onWakeupLocked);

  DefaultDelayingQueue(WorkQueueBuilder<T> b) {
    super(b);
    this.addSupersedesDelayed = b.addSupersedesDelayed;
    this.backstop = !(metrics instanceof QueueMetrics.Noop);
  }

  @Override
  public void add(T item) {
    if (!addSupersedesDelayed) {
      super.add(item);
      return;
    }
    requireItem(item);
    lock.lock();
    try {
      promoteDueLocked();
      if (!shuttingDown && waiting.remove(item)) {
        armBackstopLocked();
      }
      addLocked(item);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void addAfter(T item, Duration delay) {
    delayed(item, delay, false);
  }

  @Override
  public void reschedule(T item, Duration delay) {
    delayed(item, delay, true);
  }

  private void delayed(T item, Duration delay, boolean reschedule) {
    requireItem(item);
    requireArg(delay, "delay");
    long nanos = TimeMath.toNanosSaturated(delay);
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      metrics.retried();
      long now = clock.nanoTime();
      promoteDueLocked(now);
      if (nanos <= 0) {
        if (reschedule && waiting.remove(item)) {
          armBackstopLocked();
        }
        addLocked(item);
        return;
      }
      long readyAt = TimeMath.deadline(now, nanos);
      boolean empty = waiting.isEmpty();
      long oldHead = empty ? 0 : waiting.headReadyAt();
      if (reschedule) {
        waiting.schedule(item, readyAt);
      } else if (empty || readyAt - oldHead < 0) {
        waiting.offerEarliest(item, readyAt); // a new head
      } else {
        waiting.offerEarliestDeferred(item, readyAt); // behind the head: cannot change it
        return;
      }
      if (empty || waiting.headReadyAt() != oldHead) {
        headChangedLocked();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The head's ready time changed (or the first item waits): a leader waiting for the old head
   * may wait too long, and followers wait for no time at all. Wake one of them; it becomes the
   * leader for the new head.
   */
  private void headChangedLocked() {
    if (waiters > 0) {
      leader = null;
      notEmpty.signal();
    }
    armBackstopLocked();
  }

  @Override
  public boolean cancel(T item) {
    requireItem(item);
    lock.lock();
    try {
      promoteDueLocked();
      if (!waiting.remove(item)) {
        return false;
      }
      armBackstopLocked(); // a leader waiting for the removed head wakes early and re-waits
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int waitingCount() {
    lock.lock();
    try {
      promoteDueLocked();
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  // ---- promotion ----

  @Override
  final void promoteDueLocked() {
    if (!waiting.isEmpty()) {
      promoteDueLocked(clock.nanoTime());
    }
  }

  /** Moves every item due at {@code now} into the queue, in ready-time order. */
  private void promoteDueLocked(long now) {
    if (waiting.isEmpty() || !TimeMath.reached(now, waiting.headReadyAt())) {
      return;
    }
    do {
      addLocked(waiting.poll());
    } while (!waiting.isEmpty() && TimeMath.reached(now, waiting.headReadyAt()));
    armBackstopLocked();
  }

  // ---- consumers ----

  @Override
  public Optional<T> get() throws InterruptedException {
    lock.lock();
    try {
      return take(false, 0);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<T> poll(Duration timeout) throws InterruptedException {
    requireArg(timeout, "timeout");
    lock.lock();
    try {
      if (timeout.compareTo(Duration.ZERO) <= 0) {
        long now = waiting.isEmpty() ? 0 : clock.nanoTime();
        promoteDueLocked(now);
        return storage.size() == 0 ? Optional.empty() : Optional.of(takeQueuedLocked(now));
      }
      return take(true, TimeMath.deadline(clock.nanoTime(), TimeMath.delayNanos(timeout)));
    } finally {
      lock.unlock();
    }
  }

  /**
   * The consumer loop, under the lock: promote, take if anything is queued, else wait, as the
   * leader (until the head's ready time) if there is none and the head comes before this
   * caller's own deadline.
   */
  private Optional<T> take(boolean timed, long deadline) throws InterruptedException {
    try {
      while (true) {
        long now = timed || !waiting.isEmpty() ? clock.nanoTime() : 0;
        promoteDueLocked(now);
        if (storage.size() > 0) {
          return Optional.of(takeQueuedLocked(now));
        }
        if (shuttingDown || (timed && TimeMath.reached(now, deadline))) {
          return Optional.empty();
        }
        if (leader == null && !waiting.isEmpty()
            && (!timed || waiting.headReadyAt() - deadline < 0)) {
          long head = waiting.headReadyAt();
          if (head - now <= SPIN_NANOS) {
            spinUntil(head);
          } else {
            awaitAsLeader(head - SPIN_NANOS); // a park oversleeps: wake early, spin the rest
          }
        } else {
          waiters++;
          try {
            if (timed) {
              clock.awaitUntil(lock, notEmpty, deadline);
            } else {
              notEmpty.await();
            }
          } finally {
            waiters--;
          }
        }
      }
    } finally {
      if (leader == null && !waiting.isEmpty()) {
        if (waiters > 0) {
          notEmpty.signal(); // hand the lead over
        } else {
          armBackstopLocked();
        }
      }
    }
  }

  /** Hands out the queue's head; {@code now} is the clock reading if items wait. */
  private T takeQueuedLocked(long now) {
    if (backstop && !waiting.isEmpty()) {
      lastTake = now;
      tookWhileWaiting = true;
    }
    return takeLocked();
  }

  /** Waits as the leader until {@code wakeAt}, or until signalled. */
  private void awaitAsLeader(long wakeAt) throws InterruptedException {
    Thread me = Thread.currentThread();
    leader = me;
    waiters++;
    try {
      clock.awaitUntil(lock, notEmpty, wakeAt);
    } finally {
      waiters--;
      if (leader == me) {
        leader = null;
      }
    }
  }

  /**
   * Leads by spinning, with the lock released, until the clock reaches {@code head} (at most
   * {@link #SPIN_NANOS} away), shutdown or an interrupt. A timed park cannot wait that little:
   * the kernel lets it oversleep by tens of microseconds, and a producer waking the consumer
   * instead costs a system call per wake-up. So while due times follow each other closely, the
   * leader never parks. Other consumers meanwhile wait as followers; adds signal them as usual.
   */
  private void spinUntil(long head) throws InterruptedException {
    Thread me = Thread.currentThread();
    leader = me;
    boolean interrupted = false;
    lock.unlock();
    try {
      while (!TimeMath.reached(clock.nanoTime(), head) && !shuttingDown) {
        if (Thread.interrupted()) {
          interrupted = true;
          break;
        }
        Thread.yield(); // on a busy machine, lets the producers run
      }
    } finally {
      lock.lock();
      if (leader == me) {
        leader = null;
      }
    }
    if (interrupted) {
      throw new InterruptedException();
    }
  }

  // ---- the metrics backstop ----

  /**
   * For a queue with live metrics: makes a clock wake-up due no later than the head's ready
   * time (or {@link #BACKSTOP_GRACE_NANOS} after a consumer's last take, if that is later)
   * while items wait and no leader waits, and cancels it when nothing waits. A leader that
   * appears leaves an armed wake-up alone (cheaper than cancelling it); one that fires while a
   * leader waits does nothing more.
   */
  private void armBackstopLocked() {
    if (!backstop) {
      return;
    }
    if (waiting.isEmpty() || shuttingDown) {
      wakeup.cancel();
      return;
    }
    long target = waiting.headReadyAt();
    if (tookWhileWaiting && lastTake + BACKSTOP_GRACE_NANOS - target > 0) {
      target = lastTake + BACKSTOP_GRACE_NANOS;
    }
    if (leader != null) {
      return;
    }
    wakeup.arm(target);
  }

  private void onWakeupLocked() {
    if (shuttingDown) {
      return;
    }
    promoteDueLocked();
    armBackstopLocked();
  }

  @Override
  void onShutDown() {
    waiting.clear();
    wakeup.cancel();
  }
}
