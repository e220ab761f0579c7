package dev.workqueue.examples.pool;

/**
 * What wakes a {@link PoolScheduler}'s thread: the items of its {@code DelayingQueue}. A
 * {@link Wake} that is already queued is not queued twice, which is what the seed gets from
 * its buffered channels of size one; the records carry what they are about.
 */
sealed interface Signal permits Signal.Wake, Signal.Poll, Signal.Recheck, Signal.Expire {

  enum Wake implements Signal {
    /** New requests are in the inbox. Resets the poll back-off. */
    REQUEST,
    /** {@code idleNotifyDelay} after a {@code notifyIdle}. Lists idle pods; resets the back-off. */
    IDLE,
    /** A claim conflicted; its request is back in line. Resets the back-off. */
    CONFLICT,
    /** A claim ended while the scheduler waited for a slot under the concurrency cap. */
    CLAIM_FINISHED
  }

  /** The poll timer; a generation that is no longer armed is ignored when it fires. */
  record Poll(long generation) implements Signal {}

  /** A conflicted pod's reservation has run out: list again, it may be idle still. */
  record Recheck(PodRef pod) implements Signal {}

  /** A request's timeout has passed. */
  record Expire(ClaimRequest request) implements Signal {}
}
