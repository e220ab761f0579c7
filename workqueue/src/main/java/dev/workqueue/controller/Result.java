package dev.workqueue.controller;

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

  /** Done: the key's back-off is forgotten. Returning {@code null} means the same. */
  public static Result success() {
    return SUCCESS;
  }

  /** Try again after the rate limiter's delay ({@code addRateLimited}); the back-off grows. */
  public static Result requeue() {
    return REQUEUE;
  }

  /**
   * Try again after {@code delay} ({@code forget}, then {@code addAfter}): for polling an
   * external state, not for failures.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  public static Result requeueAfter(Duration delay) {
    TimeMath.requireNonNegative(delay, "delay");
    return new Result(false, delay, null);
  }

  /**
   * This result, requeueing at {@code priority} on a {@link dev.workqueue.PriorityWorkQueue}
   * (controller-runtime's {@code Result.Priority}). Without it a requeue keeps the priority the
   * key was handed out at. Ignored on other queues, and when nothing is requeued (a success).
   */
  public Result withPriority(int priority) {
    return new Result(requeue, requeueAfter, priority);
  }

  /** The priority set by {@link #withPriority}, if any. */
  public OptionalInt priority() {
    return priority == null ? OptionalInt.empty() : OptionalInt.of(priority);
  }

  /** Whether this result asks for no requeue at all: a success (a priority does not matter). */
  public boolean isSuccess() {
    return !requeue && requeueAfter == null;
  }

  /** Whether this result asks for a rate-limited requeue. */
  public boolean isRequeue() {
    return requeue;
  }

  /** The delay of a {@link #requeueAfter} result, or null. */
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
