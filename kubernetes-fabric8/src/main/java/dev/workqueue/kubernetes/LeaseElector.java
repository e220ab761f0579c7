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
  private final java.util.Set<Integer> warnedCodes = java.util.concurrent.ConcurrentHashMap
      .newKeySet();

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
   * Stops contending; if leading, reports the end ({@code onStop}). With {@code release}, gives
   * the Lease up so that another replica need not wait for it to expire: only when the caller
   * knows that no reconcile of this replica still runs.
   */
  void stop(boolean release) throws InterruptedException {
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
    if (release) {
      try {
        call(this::release, config.renewDeadline().toNanos()); // it checks the holder itself
      } catch (RuntimeException | TimeoutException e) {
        log.warn("lease {}: release failed; it expires by itself", describe(), e);
      }
    }
    calls.shutdownNow();
  }

  private void run() {
    try {
      while (!stopping) {
        long tried = System.nanoTime(); // the write lands after this: count the Lease from here
        if (!Boolean.TRUE.equals(tryCall(config.renewDeadline().toNanos()))) {
          sleep(jittered(config.retryPeriod().toNanos()));
          continue;
        }
        leading = true;
        if (!runCallback(onStart, "start")) {
          stepDown(); // leading without workers would stall every replica: let another lead
          continue;
        }
        lead(tried);
        if (leading && !stopping) {
          leading = false;
          runCallback(onStop, "stop");
        }
      }
    } catch (InterruptedException e) {
      // stop() interrupts; it reports the end itself
    }
  }

  /**
   * Renews every retry period until the renew deadline passes without a renewal (counted from
   * before the last successful call was sent, as the other replicas count from its write) or
   * another replica holds the Lease.
   */
  private void lead(long renewedAt) throws InterruptedException {
    long deadline = renewedAt + config.renewDeadline().toNanos();
    while (!stopping) {
      sleep(Math.min(config.retryPeriod().toNanos(), deadline - System.nanoTime()));
      long tried = System.nanoTime();
      long left = deadline - tried;
      if (left <= 0) {
        log.warn("lease {}: not renewed within {}; stopping leading", describe(),
            config.renewDeadline());
        return;
      }
      Boolean ok = tryCall(left);
      if (Boolean.TRUE.equals(ok)) {
        deadline = tried + config.renewDeadline().toNanos();
      } else if (Boolean.FALSE.equals(ok)) {
        log.info("lease {}: lost (held by {}, or written by another replica since read);"
            + " stopping leading", describe(), observedHolder);
        return;
      } // null: the call failed; try again until the deadline
    }
  }

  /** The start callback failed: report the end, give the Lease up and wait a retry period. */
  private void stepDown() throws InterruptedException {
    leading = false;
    runCallback(onStop, "stop");
    try {
      call(this::release, config.renewDeadline().toNanos());
    } catch (RuntimeException | TimeoutException e) {
      log.warn("lease {}: release failed; it expires by itself", describe(), e);
    }
    sleep(jittered(config.retryPeriod().toNanos()));
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
      if (e.getCode() >= 400 && e.getCode() < 500 && warnedCodes.add(e.getCode())) {
        // 403 (no RBAC for leases), 404 (no namespace): not transient; said once per code
        log.warn("lease {}: the API server refused the Lease (HTTP {}); retrying every {}",
            describe(), e.getCode(), config.retryPeriod(), e);
      } else {
        log.debug("lease {}: the call to the API server failed", describe(), e);
      }
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
      return await(f, timeoutNanos);
    } finally {
      tellNewLeader(); // on this thread, so a slow listener costs no renewal time
    }
  }

  private String toldHolder;

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
      log.warn("lease {}: the new-leader listener threw", describe(), e);
    }
  }

  private <V> V await(Future<V> f, long timeoutNanos)
      throws InterruptedException, TimeoutException {
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
      observedHolder = lease.getSpec().getHolderIdentity();
    }
  }

  private io.fabric8.kubernetes.client.dsl.Resource<Lease> leases() {
    return client.leases().inNamespace(config.namespace()).withName(config.name());
  }

  /** Runs a callback; whether it returned normally. */
  private boolean runCallback(Runnable callback, String what) {
    try {
      callback.run();
      return true;
    } catch (RuntimeException e) {
      log.error("lease {}: the {} callback threw", describe(), what, e);
      return false;
    }
  }

  private static long jittered(long nanos) {
    return nanos + (long) (ThreadLocalRandom.current().nextDouble() * LeaderElection.JITTER
        * nanos);
  }

  private static void sleep(long nanos) throws InterruptedException {
    if (nanos > 0) {
      TimeUnit.NANOSECONDS.sleep(nanos);
    }
  }

  private String describe() {
    return config.namespace() + "/" + config.name() + " (" + config.identity() + ", controller "
        + name + ")";
  }
}
