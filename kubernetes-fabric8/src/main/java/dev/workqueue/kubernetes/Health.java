package dev.workqueue.kubernetes;

import dev.workqueue.controller.ControllerStatus;
import java.util.Objects;

/**
 * A {@link KubernetesController}'s health, for liveness and readiness probes: are the caches
 * synced, does this replica lead, and how are its workers and queue.
 *
 * @param cachesSynced every informer has received its initial list
 * @param leadership whether this replica runs the workers
 * @param workers the workers, the queue (keys ready, keys waiting out a back-off) and the time
 *     since the last reconcile
 */
public record Health(boolean cachesSynced, Leadership leadership, ControllerStatus workers) {

  /** Whether a replica runs the workers. */
  public enum Leadership {
    /** Without leader election: the workers run from start to stop. */
    NOT_ELECTING,
    /** Holds the Lease: the workers run. */
    LEADING,
    /** Another replica holds the Lease (or none yet): the caches stay warm, no worker runs. */
    STANDING_BY,
    /** A member of a shard ring, renewing its Lease: it works on its share of the keys. */
    SHARD_MEMBER,
    /**
     * A member of a shard ring that could not renew its Lease for the renew deadline: it starts
     * no reconcile, and the others take its keys once the Lease expires. Not ready.
     */
    SHARD_MEMBER_CUT_OFF
  }

  /**
   * A health report.
   *
   * @param cachesSynced every informer has received its initial list
   * @param leadership whether this replica runs the workers
   * @param workers the workers' and the queue's state
   * @throws NullPointerException if {@code leadership} or {@code workers} is null
   */
  public Health {
    Objects.requireNonNull(leadership, "leadership must not be null");
    Objects.requireNonNull(workers, "workers must not be null");
  }

  /**
   * Liveness: false once a worker of the running controller has died (a {@code
   * VirtualMachineError} ends its worker); a restart of the process is the cure. A replica
   * standing by is live.
   *
   * @return whether every configured worker that should run, runs
   */
  public boolean isLive() {
    return workers.workersAlive();
  }

  /**
   * Readiness: the caches are synced and the replica is live, whether it leads or stands by;
   * a shard member cut off from its Lease is not ready.
   *
   * @return whether the replica can do its job
   */
  public boolean isReady() {
    return cachesSynced && isLive() && leadership != Leadership.SHARD_MEMBER_CUT_OFF;
  }
}
