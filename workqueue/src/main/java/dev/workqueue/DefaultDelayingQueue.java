package dev.workqueue;

import dev.workqueue.internal.Checks;
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
    engine.addAfter(Checks.item(item), 0, delay(delay), false);
  }

  @Override
  public void reschedule(T item, Duration delay) {
    engine.addAfter(Checks.item(item), 0, delay(delay), true);
  }

  static long delay(Duration delay) {
    return TimeMath.delayNanos(Checks.nonNull(delay, "delay"));
  }

  @Override
  public boolean cancel(T item) {
    return engine.cancel(Checks.item(item));
  }

  @Override
  public int waitingCount() {
    return engine.waitingCount();
  }
}
