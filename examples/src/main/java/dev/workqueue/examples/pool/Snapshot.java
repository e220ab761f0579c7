package dev.workqueue.examples.pool;

import java.time.Duration;

/**
 * A point-in-time view of a {@link PoolScheduler}'s counters: the seed's {@code Snapshot}
 * plus cumulative counts. Each field is read on its own (atomic reads, no lock), so two
 * fields may be a moment apart; cheap enough for a request hot path (a pool ranker reading
 * every member pool's snapshot per request).
 *
 * @param idleReady pods admitted to the ready queue and not yet handed out: what the next
 *     requests would get (may include pods that turn out stale when taken)
 * @param queueLen requests accepted and not yet ended: queued, waiting for a pod, or in a
 *     claim write. This is what {@link PoolScheduler#enqueue}'s buffer bounds
 * @param reserved pods reserved (handed to a claim within the reservation TTL); approximate:
 *     may count reservations expired since the scheduler last looked
 * @param inflightClaims claim writes running now (at most {@code maxConcurrentClaims})
 * @param enqueued requests accepted since the start
 * @param rejected enqueues refused because the buffer was full or the scheduler shut down
 * @param claimed requests that got a pod
 * @param conflicts claim writes answered with a conflict (each one requeued its request)
 * @param failed requests failed by an API error
 * @param timedOut requests failed because their timeout passed
 * @param scaleUps scale-up signals raised
 * @param refreshes idle-pod listings read from the cache
 * @param polls poll timer firings
 * @param pollIntervalNanos the poll interval now armed, 0 when no poll is armed (nothing
 *     waits, or pods are being handed out)
 * @param lastClaimNanos the scheduler clock's reading at the latest successful claim;
 *     meaningless while {@code claimed} is 0
 */
public record Snapshot(
    int idleReady,
    int queueLen,
    long reserved,
    int inflightClaims,
    long enqueued,
    long rejected,
    long claimed,
    long conflicts,
    long failed,
    long timedOut,
    long scaleUps,
    long refreshes,
    long polls,
    long pollIntervalNanos,
    long lastClaimNanos) {

  /** The armed poll interval as a duration (zero when none is armed). */
  public Duration pollInterval() {
    return Duration.ofNanos(pollIntervalNanos);
  }

  /** One line of the counters, for logs and the demo. */
  public String summary() {
    return String.format(
        "ready %d | waiting %d | reserved %d | in flight %d | claimed %d | conflicts %d"
            + " | failed %d | timed out %d | rejected %d | scale-ups %d | refreshes %d"
            + " | polls %d",
        idleReady, queueLen, reserved, inflightClaims, claimed, conflicts, failed, timedOut,
        rejected, scaleUps, refreshes, polls);
  }
}
