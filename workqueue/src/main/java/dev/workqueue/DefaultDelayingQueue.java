package dev.workqueue;

import static dev.workqueue.Items.requireArg;
import static dev.workqueue.Items.requireItem;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;

/**
 * The delaying layer over the basic queue, under the same lock: the waiting room is a
 * {@link DelayHeap}; one clock wake-up ({@link DelayWakeup}), armed for the head's ready time
 * while anything waits, moves every due item into the queue in one batch. Consumers promote
 * due items too, before they look at the queue, so a late timer thread never holds up a
 * consumer that is running.
 */
class DefaultDelayingQueue<T> extends DefaultWorkQueue<T> implements DelayingQueue<T> {
  private final DelayHeap<T> waiting = new DelayHeap<>();
  private final boolean addSupersedesDelayed;
  private final DelayWakeup wakeup = new DelayWakeup(clock, lock, this::onWakeupLocked);

  DefaultDelayingQueue(WorkQueueBuilder<T> b) {
    super(b);
    this.addSupersedesDelayed = b.addSupersedesDelayed;
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
      if (!shuttingDown && waiting.remove(item)) {
        rearmLocked();
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
      if (nanos <= 0) {
        if (reschedule && waiting.remove(item)) {
          rearmLocked();
        }
        addLocked(item);
        return;
      }
      long readyAt = TimeMath.deadline(clock.nanoTime(), nanos);
      if (reschedule) {
        waiting.schedule(item, readyAt);
        rearmLocked();
      } else if (waiting.offerEarliest(item, readyAt)) {
        rearmLocked();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean cancel(T item) {
    requireItem(item);
    lock.lock();
    try {
      if (!waiting.remove(item)) {
        return false;
      }
      rearmLocked();
      return true;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int waitingCount() {
    lock.lock();
    try {
      return waiting.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  final void beforeTakeLocked() {
    if (!waiting.isEmpty()) {
      long now = clock.nanoTime();
      if (TimeMath.reached(now, waiting.headReadyAt())) {
        promoteDueLocked(now);
        rearmLocked();
      }
    }
  }

  private void promoteDueLocked(long now) {
    while (!waiting.isEmpty() && TimeMath.reached(now, waiting.headReadyAt())) {
      addLocked(waiting.poll());
    }
  }

  private void rearmLocked() {
    wakeup.rearm(waiting);
  }

  private void onWakeupLocked() {
    if (shuttingDown) {
      return;
    }
    promoteDueLocked(clock.nanoTime());
    rearmLocked();
  }

  @Override
  void onShutDown() {
    waiting.clear();
    wakeup.cancel();
  }
}
