package dev.workqueue;

import static dev.workqueue.Items.requireArg;
import static dev.workqueue.Items.requireItem;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;

/** The delaying queue: the engine's waiting room, at priority 0. */
class DefaultDelayingQueue<T> extends DefaultWorkQueue<T> implements DelayingQueue<T> {

  DefaultDelayingQueue(WorkQueueBuilder<T> b) {
    super(b);
  }

  DefaultDelayingQueue(WorkQueueBuilder<T> b, boolean priority) {
    super(b, priority);
  }

  @Override
  public void addAfter(T item, Duration delay) {
    engine.addAfter(requireItem(item), 0, delay(delay), false);
  }

  @Override
  public void reschedule(T item, Duration delay) {
    engine.addAfter(requireItem(item), 0, delay(delay), true);
  }

  static long delay(Duration delay) {
    return TimeMath.delayNanos(requireArg(delay, "delay"));
  }

  @Override
  public boolean cancel(T item) {
    return engine.cancel(requireItem(item));
  }

  @Override
  public int waitingCount() {
    return engine.waitingCount();
  }
}
