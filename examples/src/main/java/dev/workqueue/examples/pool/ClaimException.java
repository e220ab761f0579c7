package dev.workqueue.examples.pool;

import java.util.Objects;

/**
 * Why a {@link ClaimRequest} ended without a pod: the exception its future completes with
 * (the seed's {@code ClaimResult{Err}}). {@link #reason()} says which way it ended.
 */
public final class ClaimException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The ways a request can fail. */
  public enum Reason {
    /** Its timeout passed while it waited for an idle pod. */
    TIMED_OUT,
    /** The scheduler shut down before a pod was found for it. */
    SHUT_DOWN,
    /** The claim write failed with an error that is not a conflict (the cause). */
    API_ERROR
  }

  private final Reason reason;

  ClaimException(Reason reason, String message, Throwable cause) {
    super(message, cause);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /** Which way the request ended. */
  public Reason reason() {
    return reason;
  }
}
