package dev.workqueue;

import dev.workqueue.internal.Checks;
import java.util.Optional;

/**
 * What a timed take ({@link WorkQueue#pollResult}) came back with: an item, or why there was
 * none. Exactly one of {@link #item()} present, {@link #isTimedOut()} and {@link #isShutDown()}
 * holds, decided under the queue's lock at the moment the call returned, so it is free of the
 * race of asking {@link WorkQueue#isShuttingDown()} afterwards.
 *
 * @param <T> the item type
 */
public final class PollResult<T> {
  private static final PollResult<?> TIMED_OUT = new PollResult<>(null, false);
  private static final PollResult<?> SHUT_DOWN = new PollResult<>(null, true);

  private final T item;
  private final boolean shutDown;

  private PollResult(T item, boolean shutDown) {
    this.item = item;
    this.shutDown = shutDown;
  }

  static <T> PollResult<T> of(T item) {
    return new PollResult<>(Checks.item(item), false);
  }

  @SuppressWarnings("unchecked")
  static <T> PollResult<T> timedOut() {
    return (PollResult<T>) TIMED_OUT;
  }

  @SuppressWarnings("unchecked")
  static <T> PollResult<T> shutDown() {
    return (PollResult<T>) SHUT_DOWN;
  }

  /**
   * The item handed out (the caller must pass it to {@link WorkQueue#done}), or empty.
   *
   * @return the item; empty exactly when {@link #isTimedOut()} or {@link #isShutDown()} holds
   */
  public Optional<T> item() {
    return Optional.ofNullable(item);
  }

  /**
   * Whether the timeout passed with nothing to hand out, the queue still running.
   *
   * @return true if no item came in time; a consumer loop polls again
   */
  public boolean isTimedOut() {
    return item == null && !shutDown;
  }

  /**
   * Whether the queue was shut down and had nothing left to hand out: a consumer loop ends
   * here, as it does when {@link WorkQueue#get} returns empty.
   *
   * @return true if no item came because the queue is shut down and empty
   */
  public boolean isShutDown() {
    return shutDown;
  }

  @Override
  public String toString() {
    return item != null ? "PollResult[" + item + "]"
        : shutDown ? "PollResult[shut down]" : "PollResult[timed out]";
  }
}
