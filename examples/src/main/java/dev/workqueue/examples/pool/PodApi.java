package dev.workqueue.examples.pool;

import java.util.List;

/**
 * What the {@link PoolScheduler} needs from the cluster: the informer cache's view of idle
 * pods, the claim write, and the scale-up annotation. In the seed these are
 * {@code ListIdlePodsForPool} (controller-runtime cache), {@code TriggerUpdateWithOptions}
 * (an update of the pod's phase Idle → Starting) and {@code triggerScaleUpOnce} (an
 * annotation on the SandboxPool); {@link FakeApiServer} is an in-memory implementation.
 *
 * <p>Implementations must be thread-safe: {@link #listIdle} is called by the scheduler's
 * thread while up to {@code maxConcurrentClaims} {@link #claim} calls run on others.
 */
public interface PodApi {

  /**
   * The pods of {@code pool} that the informer cache shows as Idle, in the order they became
   * idle. The view may be stale: a pod claimed a moment ago may still be listed (which is why
   * the scheduler reserves what it hands out), a pod recycled a moment ago may be missing.
   * Must be fast (a local cache read): the scheduler's thread calls it.
   */
  List<PodRef> listIdle(String pool);

  /**
   * Moves {@code pod} from Idle to Starting for {@code request}, as one compare-and-set write.
   * Runs on a claim thread, never on the scheduler's thread; may block for an apiserver round
   * trip.
   *
   * @return {@link ClaimOutcome#CLAIMED}, or {@link ClaimOutcome#CONFLICT} if the pod changed
   *     underneath (retriable)
   * @throws Exception for any other failure: the request fails with
   *     {@link ClaimException.Reason#API_ERROR} and the pod's reservation is released
   */
  ClaimOutcome claim(String pool, PodRef pod, ClaimRequest request) throws Exception;

  /**
   * Tells the autoscaler that {@code pool} has requests waiting and no idle pod. The scheduler
   * calls it at most once per starvation episode and never concurrently with itself, on a
   * claim thread. A failure is logged and not retried (the next episode raises it again).
   *
   * @param waiting the number of requests waiting when the episode began
   */
  void markScaleUpPending(String pool, int waiting) throws Exception;
}
