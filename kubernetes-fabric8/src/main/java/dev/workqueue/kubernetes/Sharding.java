package dev.workqueue.kubernetes;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Active-active replicas that split the keys, for {@link KubernetesControllerBuilder#sharding}:
 * each replica holds a Lease of its own in a ring ({@code <ring>.<identity>}, labelled {@code
 * workqueue.dev/ring=<ring>}), and reconciles the keys that rendezvous hashing gives it among
 * the live members. When members come and go, about 1/n of the keys move, and a key changes
 * hands only after its previous owner has finished with it: no key is reconciled by two live
 * replicas at once (README, "Sharded controllers"). Client-go's lease defaults: 15 s, 10 s, 2 s.
 *
 * <p>A replica that cannot renew its Lease for the renew deadline starts no reconcile; the
 * others take its keys once its Lease has not changed for the lease duration. The margin between
 * the two is the time its running reconciles have to end: the timing assumption, as for leader
 * election.
 *
 * <p>RBAC: list, get, create, update and delete on {@code leases} ({@code coordination.k8s.io})
 * in {@code namespace}; the README's "RBAC" table says why.
 *
 * @param namespace the namespace of the ring's Leases
 * @param ring the ring's name: the label value, and the prefix of each member's Lease
 * @param identity this replica's name in the ring: unique, lowercase letters, digits and '-'
 * @param leaseDuration how long a member whose Lease does not change stays in the ring
 * @param renewDeadline how long a member tries to renew before it starts nothing more
 * @param retryPeriod the time between two renewals (and reads of the ring)
 * @param onMembersChange told the members this replica splits the keys among, sorted, each time
 *     they change (on the ring's thread; may be null)
 */
public record Sharding(String namespace, String ring, String identity, Duration leaseDuration,
    Duration renewDeadline, Duration retryPeriod, Consumer<List<String>> onMembersChange) {
  /** The label that puts a Lease in a ring: {@code workqueue.dev/ring=<ring>}. */
  public static final String RING_LABEL = "workqueue.dev/ring";

  private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  /**
   * Checks the settings as {@link LeaderElection} does, and the names for use in a Lease name.
   *
   * @param namespace the Leases' namespace
   * @param ring the ring's name
   * @param identity this replica's name
   * @param leaseDuration how long a member not renewing stays in; whole seconds
   * @param renewDeadline how long a member tries to renew
   * @param retryPeriod the time between renewals
   * @param onMembersChange told the members each time they change, or null
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if a name is not a DNS label, or the durations are not
   *     lease duration &gt; renew deadline &gt; 1.2 &times; retry period &gt; 0 with the lease
   *     in whole seconds
   */
  public Sharding {
    new LeaderElection(namespace, ring, identity, leaseDuration, renewDeadline, retryPeriod,
        null); // the same checks
    requireLabel(ring, "ring");
    requireLabel(identity, "identity");
  }

  /**
   * A ring named {@code ring} in {@code namespace}, with client-go's durations and this
   * replica as {@code identity}.
   *
   * @param namespace the Leases' namespace
   * @param ring the ring's name
   * @param identity this replica's name, such as the pod's name
   * @return the settings
   */
  public static Sharding ring(String namespace, String ring, String identity) {
    return new Sharding(namespace, ring, identity, Duration.ofSeconds(15), Duration.ofSeconds(10),
        Duration.ofSeconds(2), null);
  }

  /**
   * These settings with other durations (checked as the constructor does).
   *
   * @param leaseDuration how long a member not renewing stays in; whole seconds
   * @param renewDeadline how long a member tries to renew
   * @param retryPeriod the time between renewals
   * @return new settings
   */
  public Sharding withDurations(Duration leaseDuration, Duration renewDeadline,
      Duration retryPeriod) {
    return new Sharding(namespace, ring, identity, leaseDuration, renewDeadline, retryPeriod,
        onMembersChange);
  }

  /**
   * These settings, telling {@code listener} the members this replica splits the keys among
   * each time they change (a join, a leave, a member counted out or back).
   *
   * @param listener called on the ring's thread with the sorted identities; keep it short
   * @return new settings
   */
  public Sharding withMembersListener(Consumer<List<String>> listener) {
    return new Sharding(namespace, ring, identity, leaseDuration, renewDeadline, retryPeriod,
        Objects.requireNonNull(listener, "listener must not be null"));
  }

  private static void requireLabel(String value, String what) {
    Objects.requireNonNull(value, what + " must not be null");
    if (!NAME.matcher(value).matches() || value.length() > 63) {
      throw new IllegalArgumentException(what + " must be lowercase letters, digits and '-',"
          + " starting and ending with a letter or digit, at most 63 characters; was '"
          + value + "'");
    }
  }
}
