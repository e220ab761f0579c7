package dev.workqueue;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.ratelimit.RateLimiter;
import java.time.Duration;
import java.util.Optional;

/**
 * The priority queue: the engine with controller-runtime's order (priority lines with aging)
 * and merge rules. See {@link QueueEngine}.
 */
final class DefaultPriorityWorkQueue<T> extends DefaultRateLimitingQueue<T>
    implements PriorityWorkQueue<T> {

  DefaultPriorityWorkQueue(WorkQueueBuilder<T> b, RateLimiter<? super T> limiter) {
    super(b, limiter, true);
  }

  @Override
  public void add(T item, AddOptions options) {
    Checks.item(item);
    Checks.nonNull(options, "options");
    long after = options.after().isZero() ? 0 : TimeMath.delayNanos(options.after());
    if (options.rateLimited()) {
      if (engine.isShuttingDown()) {
        return; // do not count a requeue the queue will ignore
      }
      long limited = limiterDelay(item);
      engine.addAfter(item, options.priority(), after == 0 ? limited : Math.min(after, limited),
          false);
    } else if (after > 0) {
      engine.addAfter(item, options.priority(), after, false);
    } else {
      engine.add(item, options.priority());
    }
  }

  @Override
  public Optional<PriorityItem<T>> getWithPriority() throws InterruptedException {
    Entry<T> e = engine.take(-1);
    return e == QueueEngine.SHUT_DOWN
        ? Optional.empty() : Optional.of(new PriorityItem<>(e.item, e.takenPriority));
  }

  @Override
  public Optional<PriorityItem<T>> pollWithPriority(Duration timeout)
      throws InterruptedException {
    Entry<T> e = engine.take(timeoutNanos(timeout));
    return e == QueueEngine.SHUT_DOWN || e == QueueEngine.TIMED_OUT
        ? Optional.empty() : Optional.of(new PriorityItem<>(e.item, e.takenPriority));
  }

  /** For tests: the engine's structures agree with each other. */
  boolean checkInvariants() {
    return engine.checkInvariants();
  }
}
