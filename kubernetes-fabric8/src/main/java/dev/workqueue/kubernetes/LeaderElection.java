package dev.workqueue.kubernetes;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Leader election on a {@code coordination.k8s.io/v1} Lease, for {@link
 * KubernetesControllerBuilder#leaderElection}: of the replicas that name the same Lease, only
 * the holder runs workers; the others keep their caches warm and stand by. Client-go's defaults:
 * lease 15 s, renew deadline 10 s, retry period 2 s.
 *
 * <p>A holder that cannot renew for the renew deadline stops its workers (the process goes on
 * and stands by); another replica takes the Lease once it has not been renewed for the lease
 * duration. The margin between the two is when the old holder's workers stop, so one replica
 * reconciles at a time, as long as reconciles end when their worker is interrupted (one that
 * ignores interrupts can outlive its replica's leadership).
 *
 * <p>One Lease per controller: replicas of a controller share it, but two controllers of one
 * process must not (they would have the same identity and take the Lease from each other). For
 * several controllers in one process, give one election to an {@link Operator}: it leads them all.
 *
 * <p>RBAC: get, create, update, list and watch on {@code leases} ({@code coordination.k8s.io})
 * in {@code namespace}; the README's "RBAC" table says why, and {@code examples/deploy/rbac.yaml}
 * is a manifest that grants them.
 *
 * @param namespace the Lease's namespace
 * @param name the Lease's name
 * @param identity this replica's name in the Lease: unique per replica
 * @param leaseDuration how long a Lease not renewed stays held; whole seconds, as the Lease keeps
 *     it ({@code leaseDurationSeconds}) and the other replicas read it from there
 * @param renewDeadline how long the holder keeps trying to renew before it stops leading
 * @param retryPeriod the wait between tries to take or renew the Lease
 * @param onNewLeader told the identity of each new holder (on an election thread; may be null)
 */
public record LeaderElection(String namespace, String name, String identity,
    Duration leaseDuration, Duration renewDeadline, Duration retryPeriod,
    Consumer<String> onNewLeader) {
  /** client-go's jitter factor: a retry waits up to this times the retry period more. */
  static final double JITTER = 1.2;

  /**
   * Checks the settings as client-go does.
   *
   * @param namespace the Lease's namespace
   * @param name the Lease's name
   * @param identity this replica's name in the Lease
   * @param leaseDuration how long a Lease not renewed stays held; whole seconds
   * @param renewDeadline how long the holder keeps trying to renew
   * @param retryPeriod the wait between tries
   * @param onNewLeader told each new holder's identity, or null
   * @throws NullPointerException if a name or duration is null
   * @throws IllegalArgumentException if a name is empty, if the lease duration is not whole
   *     seconds, or unless lease duration &gt; renew deadline &gt; 1.2 &times; retry period &gt; 0
   */
  public LeaderElection {
    requireName(namespace, "namespace");
    requireName(name, "name");
    requireName(identity, "identity");
    Objects.requireNonNull(leaseDuration, "leaseDuration must not be null");
    Objects.requireNonNull(renewDeadline, "renewDeadline must not be null");
    Objects.requireNonNull(retryPeriod, "retryPeriod must not be null");
    if (retryPeriod.isNegative() || retryPeriod.isZero()) {
      throw new IllegalArgumentException("retryPeriod must be positive, was " + retryPeriod);
    }
    if (renewDeadline.toNanos() <= JITTER * retryPeriod.toNanos()) {
      throw new IllegalArgumentException("renewDeadline must be more than 1.2 x retryPeriod, was "
          + renewDeadline + " with retryPeriod " + retryPeriod);
    }
    if (leaseDuration.toNanos() % 1_000_000_000L != 0) {
      // The Lease keeps it as leaseDurationSeconds, and replicas read it from there: 1.5 s
      // would be 1 s to the others, shorter than the holder's renew deadline.
      throw new IllegalArgumentException(
          "leaseDuration must be whole seconds (a Lease stores seconds), was " + leaseDuration);
    }
    if (leaseDuration.compareTo(renewDeadline) <= 0) {
      throw new IllegalArgumentException("leaseDuration must be more than renewDeadline, was "
          + leaseDuration + " with renewDeadline " + renewDeadline);
    }
  }

  /**
   * Election on the Lease {@code namespace/name} with client-go's durations and an identity of
   * the host name and a random suffix.
   *
   * @param namespace the Lease's namespace
   * @param name the Lease's name
   * @return the settings
   */
  public static LeaderElection lease(String namespace, String name) {
    return new LeaderElection(namespace, name, defaultIdentity(), Duration.ofSeconds(15),
        Duration.ofSeconds(10), Duration.ofSeconds(2), null);
  }

  /**
   * These settings with another identity.
   *
   * @param identity this replica's name in the Lease, such as the pod's name
   * @return new settings
   */
  public LeaderElection withIdentity(String identity) {
    return new LeaderElection(namespace, name, identity, leaseDuration, renewDeadline,
        retryPeriod, onNewLeader);
  }

  /**
   * These settings with other durations (checked as the constructor does).
   *
   * @param leaseDuration how long a Lease not renewed stays held
   * @param renewDeadline how long the holder tries to renew before it stops leading
   * @param retryPeriod the wait between tries
   * @return new settings
   */
  public LeaderElection withDurations(Duration leaseDuration, Duration renewDeadline,
      Duration retryPeriod) {
    return new LeaderElection(namespace, name, identity, leaseDuration, renewDeadline,
        retryPeriod, onNewLeader);
  }

  /**
   * These settings, telling {@code listener} each new holder's identity.
   *
   * @param listener called on an election thread; keep it short
   * @return new settings
   */
  public LeaderElection withNewLeaderListener(Consumer<String> listener) {
    return new LeaderElection(namespace, name, identity, leaseDuration, renewDeadline,
        retryPeriod, Objects.requireNonNull(listener, "listener must not be null"));
  }

  private static void requireName(String value, String what) {
    Objects.requireNonNull(value, what + " must not be null");
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }

  private static String defaultIdentity() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "replica";
    }
    return host + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
