package dev.workqueue.examples.pool;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One request for a pod: the seed's {@code ClaimRequest}. Its {@link #result()} completes
 * with a {@link Claim} or fails with a {@link ClaimException}; a request given to
 * {@link PoolScheduler#enqueue} that returned true always ends one of these two ways.
 *
 * <p>To withdraw a request, cancel its future: the scheduler drops it when it comes to it
 * (a claim write already under way is not undone). Do not complete the future yourself.
 *
 * <p>A request can be enqueued once (a rejected enqueue does not count: try again with the
 * same request). Thread-safe.
 */
public final class ClaimRequest {
  private final String id;
  private final Duration timeout;
  private final CompletableFuture<Claim> result = new CompletableFuture<>();
  private final AtomicBoolean enqueued = new AtomicBoolean();

  // Written by the scheduler: at enqueue, dispatch, and by the claim thread that had it.
  // A request is held by one of them at a time and passed on through concurrent queues.
  volatile long deadlineNanos;
  volatile boolean claiming;
  volatile int attempts;

  private ClaimRequest(String id, Duration timeout) {
    this.id = Objects.requireNonNull(id, "id");
    this.timeout = timeout;
  }

  /**
   * A request that waits for a pod as long as the scheduler runs.
   *
   * @param id names the request in logs and in {@link Claim}s' owners (the fake records it)
   * @throws NullPointerException if {@code id} is null
   */
  public static ClaimRequest of(String id) {
    return new ClaimRequest(id, null);
  }

  /**
   * A request that fails with {@link ClaimException.Reason#TIMED_OUT} if no pod was found for
   * it within {@code timeout} of its enqueue, on the scheduler's clock (the seed's
   * {@code Deadline}). A claim write under way when the time comes is let finish.
   *
   * @throws NullPointerException if {@code id} or {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is zero or negative
   */
  public static ClaimRequest withTimeout(String id, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0, was " + timeout);
    }
    return new ClaimRequest(id, timeout);
  }

  /** The request's id. */
  public String id() {
    return id;
  }

  /** The timeout, or null if the request waits as long as the scheduler runs. */
  public Duration timeout() {
    return timeout;
  }

  /** The outcome: a {@link Claim}, or a {@link ClaimException}. Cancel it to withdraw. */
  public CompletableFuture<Claim> result() {
    return result;
  }

  /** Whether the request has ended (claimed, failed, or withdrawn). */
  public boolean isDone() {
    return result.isDone();
  }

  boolean markEnqueued() {
    return enqueued.compareAndSet(false, true);
  }

  void unmarkEnqueued() {
    enqueued.set(false);
  }

  boolean fail(ClaimException.Reason reason, String message, Throwable cause) {
    return result.completeExceptionally(new ClaimException(reason, message, cause));
  }

  @Override
  public String toString() {
    return "ClaimRequest[" + id + "]";
  }
}
