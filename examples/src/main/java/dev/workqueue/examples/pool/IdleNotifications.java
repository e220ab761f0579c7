package dev.workqueue.examples.pool;

import dev.workqueue.DelayingQueue;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns {@code notifyIdle} calls into {@link Signal.Wake#IDLE} wake-ups {@code delay} later
 * (the seed's goroutine that sleeps 200 ms before writing to {@code idleCh}), at most one
 * waiting at a time. A notification that arrives while one waits is not lost: when the
 * wake-up is taken, {@link #taken} arms another for {@code delay} after the latest
 * notification. A storm of notifications thus costs a compare-and-set each and one wake-up per
 * delay, and the pod of the last one is still looked for once the cache can show it.
 *
 * <p>Why it cannot miss one: {@link #notifyIdle} writes the time, then tries to arm;
 * {@link #taken} clears the flag, then reads the time. Either the reader sees the new time, or
 * the notifier's compare-and-set comes after the clear and arms a wake-up itself.
 *
 * <p>Thread-safe.
 */
final class IdleNotifications {
  private final Clock clock;
  private final Duration delay;
  private final DelayingQueue<Signal> signals;
  private final AtomicBoolean armed = new AtomicBoolean();
  private final AtomicLong latest = new AtomicLong();

  IdleNotifications(Clock clock, Duration delay, DelayingQueue<Signal> signals) {
    this.clock = clock;
    this.delay = delay;
    this.signals = signals;
  }

  void notifyIdle() {
    latest.set(clock.nanoTime());
    if (armed.compareAndSet(false, true)) {
      signals.addAfter(Signal.Wake.IDLE, delay);
    }
  }

  /** Called by the scheduler's thread when it takes an {@code IDLE} wake-up. */
  void taken() {
    armed.set(false);
    long remaining = latest.get() + delay.toNanos() - clock.nanoTime();
    if (remaining > 0 && armed.compareAndSet(false, true)) {
      signals.addAfter(Signal.Wake.IDLE, Duration.ofNanos(remaining));
    }
  }
}
