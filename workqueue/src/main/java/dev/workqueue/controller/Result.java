package dev.workqueue.controller;

import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.Objects;

/**
 * What a {@link Reconciler} asks for once it returns normally: controller-runtime's
 * {@code reconcile.Result}. Immutable.
 */
public final class Result {
  private static final Result SUCCESS = new Result(false, null);
  private static final Result REQUEUE = new Result(true, null);

  private final boolean requeue;
  private final Duration requeueAfter;

  private Result(boolean requeue, Duration requeueAfter) {
    this.requeue = requeue;
    this.requeueAfter = requeueAfter;
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
    return new Result(false, delay);
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
        && Objects.equals(requeueAfter, r.requeueAfter);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requeue, requeueAfter);
  }

  @Override
  public String toString() {
    return requeueAfter != null ? "Result[requeueAfter=" + requeueAfter + "]"
        : requeue ? "Result[requeue]" : "Result[success]";
  }
}
