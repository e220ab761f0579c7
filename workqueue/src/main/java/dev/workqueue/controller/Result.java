package dev.workqueue.controller;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * What a {@link Reconciler} asks for once it returns normally: controller-runtime's
 * {@code reconcile.Result}. Immutable.
 */
public final class Result {
  private static final Result SUCCESS = new Result(false, null, null);
  private static final Result REQUEUE = new Result(true, null, null);

  private final boolean requeue;
  private final Duration requeueAfter;
  private final Integer priority;

  private Result(boolean requeue, Duration requeueAfter, Integer priority) {
    this.requeue = requeue;
    this.requeueAfter = requeueAfter;
    this.priority = priority;
  }

  /**
   * Done: the key's back-off is forgotten. Returning {@code null} means the same.
   *
   * @return the success result, a shared instance
   */
  public static Result success() {
    return SUCCESS;
  }

  /**
   * Try again after the rate limiter's delay ({@code addRateLimited}); the back-off grows.
   *
   * @return the requeue result, a shared instance
   */
  public static Result requeue() {
    return REQUEUE;
  }

  /**
   * Try again after {@code delay} ({@code forget}, then {@code addAfter}): for polling an
   * external state, not for failures.
   *
   * @param delay how long until the key is reconciled again; zero requeues it at once
   * @return a result asking for a requeue after {@code delay}
   * @throws NullPointerException if {@code delay} is null
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static Result requeueAfter(Duration delay) {
    Checks.nonNegative(delay, "delay");
    return new Result(false, delay, null);
  }

  /**
   * This result, requeueing at {@code priority} on a {@link dev.workqueue.PriorityWorkQueue}
   * (controller-runtime's {@code Result.Priority}). Without it a requeue keeps the priority the
   * key was handed out at. Ignored on other queues, and when nothing is requeued (a success).
   *
   * @param priority the requeue's priority; higher is served first; any {@code int}
   * @return a new result; this one is unchanged
   */
  public Result withPriority(int priority) {
    return new Result(requeue, requeueAfter, priority);
  }

  /**
   * The priority set by {@link #withPriority}, if any.
   *
   * @return the priority, or empty if the requeue keeps the key's priority
   */
  public OptionalInt priority() {
    return priority == null ? OptionalInt.empty() : OptionalInt.of(priority);
  }

  /**
   * Whether this result asks for no requeue at all: a success (a priority does not matter).
   *
   * @return true for {@link #success()}, with or without a priority
   */
  public boolean isSuccess() {
    return !requeue && requeueAfter == null;
  }

  /**
   * Whether this result asks for a rate-limited requeue.
   *
   * @return true for {@link #requeue()}, with or without a priority
   */
  public boolean isRequeue() {
    return requeue;
  }

  /**
   * The delay of a {@link #requeueAfter} result, or null.
   *
   * @return the delay, not negative; null unless the result came from {@link #requeueAfter}
   */
  public Duration requeueAfterDelay() {
    return requeueAfter;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Result r && requeue == r.requeue
        && Objects.equals(requeueAfter, r.requeueAfter) && Objects.equals(priority, r.priority);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requeue, requeueAfter, priority);
  }

  @Override
  public String toString() {
    String what = requeueAfter != null ? "requeueAfter=" + requeueAfter
        : requeue ? "requeue" : "success";
    return "Result[" + what + (priority == null ? "" : ", priority=" + priority) + "]";
  }
}
