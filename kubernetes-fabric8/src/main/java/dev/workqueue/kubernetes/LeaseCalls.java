package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LeaseElector}'s calls to the API server: take or renew the Lease, release it, and
 * watch it ({@link LeaseWatch}). Each call runs on one thread of its own and is abandoned at its
 * timeout, so a hung call cannot keep a replica leading past its renew deadline.
 *
 * <p>Expiry is judged as client-go does, on this replica's own monotonic clock: a Lease held by
 * another is expired once its record has not changed for its {@code leaseDurationSeconds} since
 * this replica first saw that version. Every write is guarded by the resourceVersion read, so
 * two replicas cannot both take one Lease. A Lease without a spec or a holder is free: taken by
 * such a guarded update, as client-go does (a create would fail with 409, forever).
 *
 * <p>Thread-safety: called by the elector's loop thread, or by its {@code stop} once that thread
 * has ended.
 */
final class LeaseCalls {
  private static final Logger log = LoggerFactory.getLogger(LeaseCalls.class);

  private final KubernetesClient client;
  private final LeaderElection config;
  private final String describe;
  private final ExecutorService thread;
  private final Set<Integer> warnedCodes = ConcurrentHashMap.newKeySet();
  private String toldHolder; // the last holder told to onNewLeader

  // Written by the calls thread, read by the loop thread.
  private volatile String observedVersion;
  private volatile String observedHolder;
  private volatile long observedAt;
  private volatile String refusal; // why the last try did not take or keep the Lease

  LeaseCalls(KubernetesClient client, LeaderElection config, String threadName,
      String describe) {
    this.client = client;
    this.config = config;
    this.describe = describe;
    this.thread = DaemonThreads.single(threadName);
  }

  /**
   * Takes the Lease if it is free, expired or this replica's; with {@code leading}, only renews
   * it: a Lease deleted or held by another (even expired, even by none) is lost.
   *
   * @return true if held now; false if refused ({@link #refusal} says why); null if the call
   *     failed or took longer than {@code timeoutNanos}
   */
  Boolean tryAcquireOrRenew(boolean leading, long timeoutNanos) throws InterruptedException {
    try {
      return call(() -> attempt(leading), timeoutNanos);
    } catch (TimeoutException e) {
      log.debug("lease {}: the call to the API server took too long", describe);
      return null;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        refusal = "the Lease was written by another replica since it was read";
        return false;
      }
      if (e.getCode() >= 400 && e.getCode() < 500 && warnedCodes.add(e.getCode())) {
        // 403 (no RBAC for leases), 404 (no namespace): not transient; said once per code
        log.warn("lease {}: the API server refused the Lease (HTTP {}); retrying every {}",
            describe, e.getCode(), config.retryPeriod(), e);
      } else {
        log.debug("lease {}: the call to the API server failed", describe, e);
      }
      return null;
    } catch (RuntimeException e) {
      log.debug("lease {}: the call to the API server failed", describe, e);
      return null;
    } finally {
      tellNewLeader(); // on the caller's thread, so a slow listener costs no call time
    }
  }

  /** Why the last {@link #tryAcquireOrRenew} returned false. */
  String refusal() {
    return refusal;
  }

  /** Gives the Lease up if this replica holds it; a failure is logged: it expires then. */
  void release(long timeoutNanos) throws InterruptedException {
    try {
      call(this::releaseNow, timeoutNanos);
    } catch (RuntimeException | TimeoutException e) {
      log.warn("lease {}: release failed; it expires by itself", describe, e);
    }
  }

  /** Starts watching the Lease; at once, without waiting for the watch to be established. */
  LeaseWatch watch(Consumer<String> lost) {
    return new LeaseWatch(client, config, lost);
  }

  boolean isClosed() {
    return thread.isShutdown();
  }

  void close() {
    thread.shutdownNow();
  }

  private <V> V call(Callable<V> body, long timeoutNanos)
      throws InterruptedException, TimeoutException {
    Future<V> f = thread.submit(body);
    try {
      return f.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      f.cancel(true);
      throw e;
    }
  }

  private void tellNewLeader() {
    String holder = observedHolder;
    if (config.onNewLeader() == null || holder == null || holder.isEmpty()
        || holder.equals(toldHolder)) {
      return;
    }
    toldHolder = holder;
    try {
      config.onNewLeader().accept(holder);
    } catch (RuntimeException e) {
      log.warn("lease {}: the new-leader listener threw", describe, e);
    }
  }

  /** Runs on the calls thread. */
  private Boolean attempt(boolean leading) {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    Lease lease = lease().get();
    int seconds = (int) config.leaseDuration().toSeconds();
    if (lease == null) {
      if (leading) {
        // As the leader's watch does: whoever contends next (this replica too) creates it.
        refusal = "the Lease was deleted";
        observedHolder = null;
        return false;
      }
      Lease created = client.leases().inNamespace(config.namespace()).resource(
          new LeaseBuilder().withNewMetadata()
          .withName(config.name()).withNamespace(config.namespace()).endMetadata()
          .withNewSpec().withHolderIdentity(config.identity()).withLeaseDurationSeconds(seconds)
          .withAcquireTime(now).withRenewTime(now).withLeaseTransitions(0).endSpec().build())
          .create();
      observe(created);
      return true;
    }
    observe(lease);
    LeaseSpec spec = lease.getSpec();
    String holder = spec == null ? null : spec.getHolderIdentity();
    boolean mine = config.identity().equals(holder);
    boolean free = holder == null || holder.isEmpty();
    if (leading && !mine) {
      refusal = free ? "the Lease was emptied by another writer" : "the Lease is held by " + holder;
      return false;
    }
    if (!mine && !free) {
      Integer declared = spec.getLeaseDurationSeconds();
      long held = TimeUnit.SECONDS.toNanos(declared == null ? seconds : declared);
      if (System.nanoTime() - observedAt < held) {
        refusal = "the Lease is held by " + holder;
        return false; // held by another and not expired by our observation
      }
    }
    int transitions = spec == null || spec.getLeaseTransitions() == null ? 0
        : spec.getLeaseTransitions();
    Lease next = new LeaseBuilder(lease).editOrNewSpec().withHolderIdentity(config.identity())
        .withLeaseDurationSeconds(seconds).withAcquireTime(mine ? spec.getAcquireTime() : now)
        .withRenewTime(now).withLeaseTransitions(mine ? transitions : transitions + 1)
        .endSpec().build();
    Lease written = client.leases().inNamespace(config.namespace()).resource(next)
        .lockResourceVersion(lease.getMetadata().getResourceVersion()).update();
    observe(written);
    return true;
  }

  /** Runs on the calls thread. */
  private Void releaseNow() {
    Lease lease = lease().get();
    if (lease == null || lease.getSpec() == null
        || !config.identity().equals(lease.getSpec().getHolderIdentity())) {
      return null;
    }
    client.leases().inNamespace(config.namespace()).resource(new LeaseBuilder(lease).editSpec()
        .withHolderIdentity("").withLeaseDurationSeconds(1)
        .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build())
        .lockResourceVersion(lease.getMetadata().getResourceVersion()).update();
    log.info("lease {}: released", describe);
    return null;
  }

  private void observe(Lease lease) {
    String version = lease.getMetadata().getResourceVersion();
    if (!Objects.equals(version, observedVersion)) {
      observedVersion = version;
      observedAt = System.nanoTime();
      observedHolder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    }
  }

  private Resource<Lease> lease() {
    return client.leases().inNamespace(config.namespace()).withName(config.name());
  }
}
