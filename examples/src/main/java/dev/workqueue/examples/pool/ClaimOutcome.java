package dev.workqueue.examples.pool;

/** What the apiserver answered to a claim write ({@link PodApi#claim}). */
public enum ClaimOutcome {
  /** The pod moved from Idle to Starting for this request: it is the request's now. */
  CLAIMED,
  /**
   * The write lost a race: a resource-version conflict (HTTP 409), or the pod was no longer
   * Idle (the seed's {@code ErrUnexpectedPodPhase}). Retriable: the scheduler puts the request
   * back at the head of its line and tries another pod.
   */
  CONFLICT
}
