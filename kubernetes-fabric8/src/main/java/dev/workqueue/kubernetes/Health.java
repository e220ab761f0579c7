package dev.workqueue.kubernetes;

import dev.workqueue.controller.ControllerStatus;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link KubernetesController}'s health, for liveness and readiness probes: are the caches
 * synced and do their watches run, does this replica lead, how are its workers and queue, and,
 * if it cannot recover, why.
 *
 * <p><b>Not ready</b> while an informer's watch is down for {@link #RECONNECT_GRACE} or longer,
 * whatever the reason (the API server is unreachable, a list or watch is refused): its cache
 * no longer follows the API server, and reconciles read stale objects. fabric8 reconnects a
 * watch by itself, with back-off (1 s, doubling up to 32 s), and re-lists when the watch's
 * resource version is gone; the grace lets the routine reconnects pass (a watch is closed and
 * reopened every 5 to 10 minutes; a dropped connection is retried after 1 s) without a probe
 * seeing them. Such an informer is still live: it retries, and a restart would not bring the
 * API server back. fabric8 tells no one when a watch drops, so the time is counted from the
 * first report that finds the watch not open: a probe that asks every few seconds sees an
 * outage within the grace plus its period. (client-go's readiness checks are the model: the
 * leader election's health check also waits a grace past the renew deadline before it fails.)
 *
 * <p><b>Not live</b> when the controller cannot recover by itself and a restart of the process
 * is the cure: its {@link KubernetesController#start start} failed (an informer could not list,
 * say 403 Forbidden, or the caches did not sync in time), an informer stopped for good after the
 * start (its exception handler gave up, as fabric8's default does when a watch fails other than
 * by a dropped connection, or the owner of a shared informer stopped it), or a worker died.
 * {@link #failure()} says why. A controller stopped by {@link KubernetesController#stop stop}
 * is live and not ready.
 *
 * @param cachesSynced every informer has received its initial list
 * @param leadership whether this replica runs the workers
 * @param workers the workers, the queue (keys ready, keys waiting out a back-off) and the time
 *     since the last reconcile
 * @param watches each informer's watch, the reconciled type's first; empty before the start
 * @param failure why the controller cannot recover (its start failed, an informer stopped for
 *     good); empty while it can
 */
public record Health(boolean cachesSynced, Leadership leadership, ControllerStatus workers,
    List<Watch> watches, Optional<String> failure) {

  /**
   * How long a watch may be down (reconnecting or re-listing) before the controller is not
   * ready: 5 s, a few of fabric8's first reconnect attempts.
   */
  public static final Duration RECONNECT_GRACE = Duration.ofSeconds(5);

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
   * One informer's watch.
   *
   * @param type the watched type's simple name, such as {@code ConfigMap}
   * @param state what the watch is doing
   * @param notWatchingFor for {@link State#RECONNECTING} and {@link State#DOWN}, how long since
   *     a report first found it not open; zero otherwise
   * @param error the last list or watch failure fabric8 reported during this outage, or why the
   *     informer stopped ({@link State#FAILED}); empty if none is known (fabric8 reports no
   *     dropped connection)
   */
  public record Watch(String type, State state, Duration notWatchingFor, Optional<String> error) {

    /**
     * A watch report.
     *
     * @param type the watched type's simple name
     * @param state what the watch is doing
     * @param notWatchingFor how long a report has found it not open, or zero
     * @param error the last failure, or why it stopped; or empty
     * @throws NullPointerException if an argument is null
     */
    public Watch {
      Objects.requireNonNull(type, "type must not be null");
      Objects.requireNonNull(state, "state must not be null");
      Objects.requireNonNull(notWatchingFor, "notWatchingFor must not be null");
      Objects.requireNonNull(error, "error must not be null");
    }

    /** What an informer's watch is doing. */
    public enum State {
      /** Started; its initial list has not arrived yet. Not ready. */
      SYNCING,
      /** The watch is open: the cache follows the API server. */
      WATCHING,
      /** Not open for less than {@link #RECONNECT_GRACE}: fabric8 is reconnecting. Ready. */
      RECONNECTING,
      /** Not open for {@link #RECONNECT_GRACE} or longer; fabric8 still retries. Not ready. */
      DOWN,
      /** Stopped for good, not by this controller: nothing restarts it. Not live. */
      FAILED,
      /** Stopped by this controller's stop (or by its failed start). Not ready. */
      STOPPED;

      boolean ready() {
        return this == WATCHING || this == RECONNECTING;
      }
    }
  }

  /**
   * A health report.
   *
   * @param cachesSynced every informer has received its initial list
   * @param leadership whether this replica runs the workers
   * @param workers the workers' and the queue's state
   * @param watches each informer's watch
   * @param failure why the controller cannot recover, or empty
   * @throws NullPointerException if an argument other than {@code cachesSynced} is null
   */
  public Health {
    Objects.requireNonNull(leadership, "leadership must not be null");
    Objects.requireNonNull(workers, "workers must not be null");
    watches = List.copyOf(Objects.requireNonNull(watches, "watches must not be null"));
    Objects.requireNonNull(failure, "failure must not be null");
  }

  /**
   * Liveness: false once the controller cannot recover by itself ({@link #failure()}: a failed
   * start, an informer stopped for good) or a worker of the running controller has died (a
   * {@code VirtualMachineError} ends its worker); a restart of the process is the cure. A
   * replica standing by, or whose watches are down but retrying, is live.
   *
   * @return whether the controller can still do its job, once the API server lets it
   */
  public boolean isLive() {
    return failure.isEmpty() && workers.workersAlive();
  }

  /**
   * Readiness: live, the caches synced, every watch open or down for less than {@link
   * #RECONNECT_GRACE}, whether the replica leads or stands by; a shard member cut off from its
   * Lease is not ready.
   *
   * @return whether the replica can do its job now
   */
  public boolean isReady() {
    return cachesSynced && isLive() && watches.stream().allMatch(w -> w.state().ready())
        && leadership != Leadership.SHARD_MEMBER_CUT_OFF;
  }
}
