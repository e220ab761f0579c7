package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease with client-go's rules, for {@link KubernetesController}. One
 * thread contends: it takes the Lease when it is free or expired, then renews it every retry
 * period; if no renewal succeeds for the renew deadline, or another replica holds the Lease,
 * leadership ends ({@code onStop}) and the thread contends again. Every call to the API server
 * runs on a second thread and is abandoned at the renew deadline, so a hung call cannot keep a
 * replica leading past it.
 *
 * <p>Expiry is judged as client-go does, on this replica's own monotonic clock: a Lease is
 * expired once its record has not changed for its {@code leaseDurationSeconds} since this
 * replica first saw that version, so the replicas' wall clocks need not agree. Updates are
 * guarded by the resourceVersion read, so two replicas cannot both take one Lease.
 *
 * <p>{@code fabric8}'s own {@code LeaderElector} is not used: with a client that fails other
 * than by {@code KubernetesClientException} its renew loop ends without reporting the loss,
 * and after a loss it never contends again.
 */
final class LeaseElector {
  private static final Logger log = LoggerFactory.getLogger(LeaseElector.class);

  private final KubernetesClient client;
  private final LeaderElection config;
  private final String name;
  private final Runnable onStart;
  private final Runnable onStop;
  private final Thread loop;
  private final ExecutorService calls;
  private volatile boolean stopping;
  private volatile boolean leading;

  // Written by the calls thread; read by the loop thread and by stop.
  private volatile String observedVersion;
  private volatile String observedHolder;
  private volatile long observedAt;

  LeaseElector(KubernetesClient client, LeaderElection config, String name, Runnable onStart,
      Runnable onStop) {
    this.client = client;
    this.config = config;
    this.name = name;
    this.onStart = onStart;
    this.onStop = onStop;
    this.loop = new Thread(this::run, "workqueue-lease-" + name);
    this.loop.setDaemon(true);
    this.calls = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "workqueue-lease-" + name + "-calls");
      t.setDaemon(true);
      return t;
    });
  }

  void start() {
    loop.start();
  }

  boolean isLeading() {
    return leading;
  }

  /**
   * Stops contending; if leading, reports the end ({@code onStop}) and releases the Lease so
   * that another replica need not wait for it to expire.
   */
  void stop() throws InterruptedException {
    if (calls.isShutdown()) {
      return; // stopped before
    }
    stopping = true;
    loop.interrupt();
    loop.join();
    if (leading) {
      leading = false;
      onStop.run();
    }
    if (observedHolder != null && observedHolder.equals(config.identity())) {
      try {
        call(this::release, config.renewDeadline().toNanos());
      } catch (RuntimeException | TimeoutException e) {
        log.warn("lease {}: release failed; it expires by itself", describe(), e);
      }
    }
    calls.shutdownNow();
  }

  private void run() {
    try {
      while (!stopping) {
        if (!attempt()) {
          sleep(jittered(config.retryPeriod().toNanos()));
          continue;
        }
        leading = true;
        runCallback(onStart, "start");
        long renewed = System.nanoTime();
        while (!stopping) {
          sleep(config.retryPeriod().toNanos());
          long left = config.renewDeadline().toNanos() - (System.nanoTime() - renewed);
          if (left <= 0) {
            log.warn("lease {}: not renewed within {}; stopping leading", describe(),
                config.renewDeadline());
            break;
          }
          Boolean ok = tryCall(left);
          if (Boolean.TRUE.equals(ok)) {
            renewed = System.nanoTime();
          } else if (Boolean.FALSE.equals(ok)) {
            log.info("lease {}: now held by {}; stopping leading", describe(), observedHolder);
            break;
          } // null: the call failed, try again until the deadline
        }
        if (leading && !stopping) {
          leading = false;
          runCallback(onStop, "stop");
        }
      }
    } catch (InterruptedException e) {
      // stop() interrupts; it reports the end itself
    }
  }

  /** One try to take or renew the Lease, bounded by the renew deadline; false if it failed. */
  private boolean attempt() throws InterruptedException {
    return Boolean.TRUE.equals(tryCall(config.renewDeadline().toNanos()));
  }

  /** True if held now, false if another replica holds it, null if the call failed. */
  private Boolean tryCall(long timeoutNanos) throws InterruptedException {
    try {
      return call(this::tryAcquireOrRenew, timeoutNanos);
    } catch (TimeoutException e) {
      log.debug("lease {}: the call to the API server took too long", describe());
      return null;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        return false; // another replica wrote the Lease since we read it
      }
      log.debug("lease {}: the call to the API server failed", describe(), e);
      return null;
    } catch (RuntimeException e) {
      log.debug("lease {}: the call to the API server failed", describe(), e);
      return null;
    }
  }

  private <V> V call(java.util.concurrent.Callable<V> body, long timeoutNanos)
      throws InterruptedException, TimeoutException {
    Future<V> f = calls.submit(body);
    try {
      return f.get(timeoutNanos, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException | InterruptedException e) {
      f.cancel(true);
      throw e;
    }
  }

  /** Runs on the calls thread. */
  private Boolean tryAcquireOrRenew() {
    ZonedDateTime now = ZonedDateTime.now(ZoneOffset.UTC);
    Lease lease = leases().get();
    int seconds = (int) config.leaseDuration().toSeconds();
    if (lease == null || lease.getSpec() == null) {
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
    String holder = spec.getHolderIdentity();
    boolean mine = config.identity().equals(holder);
    if (!mine && holder != null && !holder.isEmpty()) {
      long held = TimeUnit.SECONDS.toNanos(
          spec.getLeaseDurationSeconds() == null ? seconds : spec.getLeaseDurationSeconds());
      if (System.nanoTime() - observedAt < held) {
        return false; // held by another and not expired by our observation
      }
    }
    int transitions = spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions();
    Lease next = new LeaseBuilder(lease).editSpec().withHolderIdentity(config.identity())
        .withLeaseDurationSeconds(seconds).withAcquireTime(mine ? spec.getAcquireTime() : now)
        .withRenewTime(now).withLeaseTransitions(mine ? transitions : transitions + 1)
        .endSpec().build();
    Lease written = client.leases().inNamespace(config.namespace()).resource(next)
        .lockResourceVersion(lease.getMetadata().getResourceVersion()).update();
    observe(written);
    return true;
  }

  /** Runs on the calls thread: gives the Lease up if this replica holds it. */
  private Void release() {
    Lease lease = leases().get();
    if (lease == null || lease.getSpec() == null
        || !config.identity().equals(lease.getSpec().getHolderIdentity())) {
      return null;
    }
    client.leases().inNamespace(config.namespace()).resource(new LeaseBuilder(lease).editSpec()
        .withHolderIdentity("").withLeaseDurationSeconds(1)
        .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC)).endSpec().build())
        .lockResourceVersion(lease.getMetadata().getResourceVersion()).update();
    log.info("lease {}: released", describe());
    return null;
  }

  private void observe(Lease lease) {
    String version = lease.getMetadata().getResourceVersion();
    if (!Objects.equals(version, observedVersion)) {
      observedVersion = version;
      observedAt = System.nanoTime();
      String holder = lease.getSpec().getHolderIdentity();
      if (!Objects.equals(holder, observedHolder)) {
        observedHolder = holder;
        if (config.onNewLeader() != null && holder != null && !holder.isEmpty()) {
          try {
            config.onNewLeader().accept(holder);
          } catch (RuntimeException e) {
            log.warn("lease {}: the new-leader listener threw", describe(), e);
          }
        }
      }
    }
  }

  private io.fabric8.kubernetes.client.dsl.Resource<Lease> leases() {
    return client.leases().inNamespace(config.namespace()).withName(config.name());
  }

  private void runCallback(Runnable callback, String what) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      log.error("lease {}: the {} callback threw", describe(), what, e);
    }
  }

  private static long jittered(long nanos) {
    return nanos + (long) (ThreadLocalRandom.current().nextDouble() * LeaderElection.JITTER
        * nanos);
  }

  private static void sleep(long nanos) throws InterruptedException {
    TimeUnit.NANOSECONDS.sleep(nanos);
  }

  private String describe() {
    return config.namespace() + "/" + config.name() + " (" + config.identity() + ", controller "
        + name + ")";
  }
}
