package dev.workqueue;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.Optional;

/**
 * The basic work queue: a view of a {@link QueueEngine} with a FIFO (or fair) ready order.
 * The delaying, rate-limiting and priority queues extend it by one capability each.
 */
class DefaultWorkQueue<T> implements WorkQueue<T> {
  final QueueEngine<T> engine;

  DefaultWorkQueue(WorkQueueBuilder<T> b) {
    this(b, false);
  }

  DefaultWorkQueue(WorkQueueBuilder<T> b, boolean priority) {
    this.engine = new QueueEngine<>(b, priority);
  }

  @Override
  public void add(T item) {
    engine.add(Checks.item(item), 0);
  }

  @Override
  public Optional<T> get() throws InterruptedException {
    Entry<T> e = engine.take(-1);
    return e == QueueEngine.SHUT_DOWN ? Optional.empty() : Optional.of(e.item);
  }

  @Override
  public Optional<T> poll(Duration timeout) throws InterruptedException {
    Entry<T> e = engine.take(timeoutNanos(timeout));
    return e == QueueEngine.SHUT_DOWN || e == QueueEngine.TIMED_OUT
        ? Optional.empty() : Optional.of(e.item);
  }

  @Override
  public PollResult<T> pollResult(Duration timeout) throws InterruptedException {
    Entry<T> e = engine.take(timeoutNanos(timeout));
    if (e == QueueEngine.SHUT_DOWN) {
      return PollResult.shutDown();
    }
    return e == QueueEngine.TIMED_OUT ? PollResult.timedOut() : PollResult.of(e.item);
  }

  static long timeoutNanos(Duration timeout) {
    return TimeMath.delayNanos(Checks.nonNull(timeout, "timeout"));
  }

  @Override
  public void done(T item) {
    engine.done(Checks.item(item));
  }

  @Override
  public int size() {
    return engine.size();
  }

  @Override
  public void shutDown() {
    engine.shutDown();
  }

  @Override
  public void shutDownWithDrain() throws InterruptedException {
    engine.shutDownWithDrain();
  }

  @Override
  public boolean shutDownWithDrain(Duration timeout) throws InterruptedException {
    return engine.shutDownWithDrain(Checks.nonNull(timeout, "timeout"));
  }

  @Override
  public boolean isShuttingDown() {
    return engine.isShuttingDown();
  }
}
