package dev.workqueue.examples.pool;

import dev.workqueue.DelayingQueue;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;

/**
 * The poll timer of a scheduler whose requests wait with no pod idle: the seed's
 * {@code pollTimer}. The interval is {@code RateLimiters.exponential(base, max)} on one key:
 * each {@link #arm} takes the next {@code when} (10, 20, 40, 80, 160, 300, 300 s... with the
 * defaults) and {@link #reset} {@code forget}s it, so the next arm starts from the base again.
 * The timer itself is a {@link Signal.Poll} added after the interval; its generation number
 * makes a firing that was cancelled or superseded (already queued when it was) harmless.
 *
 * <p>Used by the scheduler's thread only, except {@link #intervalNanos}.
 */
final class PollTimer {
  private static final String KEY = "poll";

  private final RateLimiter<String> backoff;
  private final DelayingQueue<Signal> signals;
  private long generation;
  private boolean armed;
  private volatile long intervalNanos;

  PollTimer(Duration base, Duration max, DelayingQueue<Signal> signals) {
    this.backoff = RateLimiters.exponential(base, max);
    this.signals = signals;
  }

  boolean isArmed() {
    return armed;
  }

  /** Arms the timer for the next interval of the back-off, doubling it for the time after. */
  void arm() {
    Duration interval = backoff.when(KEY);
    generation++;
    armed = true;
    intervalNanos = interval.toNanos();
    signals.addAfter(new Signal.Poll(generation), interval);
  }

  /** Cancels the timer and takes the back-off back to its base. */
  void reset() {
    backoff.forget(KEY);
    if (armed) {
      signals.cancel(new Signal.Poll(generation));
      armed = false;
    }
    intervalNanos = 0;
  }

  /** @return whether {@code poll} is the armed timer firing (it is no longer armed then) */
  boolean fired(Signal.Poll poll) {
    if (armed && poll.generation() == generation) {
      armed = false;
      return true;
    }
    return false;
  }

  /** The interval armed last, 0 after a reset. */
  long intervalNanos() {
    return intervalNanos;
  }
}
