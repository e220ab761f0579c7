package dev.workqueue.trace;

import java.time.Duration;

/**
 * Carries an opaque context from each add of an item to the take that hands out the round
 * covering that add. Set on a queue with {@code WorkQueue.builder().tracer(...)}, or on a
 * controller with {@code Controller.builder(...).tracer(...)} ({@link ReconcileTracer}).
 *
 * <p><b>Which adds a round covers.</b> A hand-out of an item covers exactly the adds of it that
 * took effect after its previous hand-out and before this one, in the queue's own order of
 * operations: adds merged into the pending round, adds made while the previous round was being
 * processed (which client-go holds until {@code done}: they belong to the next round, not to
 * the one being processed), and delayed adds from the moment they fall due (a delayed add that
 * falls due while the item is processing, or waits past a hand-out, belongs to the round after).
 * A delayed add that is cancelled, or discarded at shutdown, is covered by no round. The queue
 * keeps to this under any concurrency: with a tracer every add takes effect under the queue's
 * lock, in the same hold in which its context is recorded, and a hand-out collects the contexts
 * in the hold in which the item becomes processing, so the lock orders the two exactly as it
 * orders the queue's state.
 *
 * <p><b>Cost.</b> A queue with a tracer takes its lock on every add (a queue without one merges
 * an add into a pending round, and adds a new item, without it) and records each context in a
 * map of its own; a queue without a tracer does neither.
 *
 * <p>Both methods run on the caller's thread, outside the queue's lock, and must not block. What
 * they throw is logged and ignored: an add still takes effect without a context, a take still
 * hands the item out.
 *
 * @param <T> the item type
 */
public interface QueueTracer<T> {
  /** How many contexts a round carries by default: the first eight adds. */
  int DEFAULT_MAX_CARRIED = 8;

  /**
   * On the adding thread, before the add takes effect: the context to carry with this add (for
   * example the current span's context), or null to carry none. Called for adds after shutdown
   * too, which the queue then ignores.
   *
   * @param item the item added
   * @param delay zero for an add without delay, else the delay asked (a back-off, a rate limit,
   *     an {@code addAfter})
   * @return an opaque context, or null
   */
  Object onAdd(T item, Duration delay);

  /**
   * On the thread that took {@code item}, after the take and before {@code get} returns it.
   *
   * @param item the item handed out, now processing
   * @param handOut the contexts of the adds this round covers, and its waits
   */
  void onHandOut(T item, HandOut handOut);

  /**
   * How many contexts one round carries: the first this many adds'; later adds are only
   * counted ({@link HandOut#dropped}). Read once, when the queue is built.
   *
   * @return at least 0; default {@link #DEFAULT_MAX_CARRIED}
   */
  default int maxCarried() {
    return DEFAULT_MAX_CARRIED;
  }
}
