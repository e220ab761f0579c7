package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease with client-go's rules, for {@link KubernetesController}. One
 * thread contends: it takes the Lease when it is free or expired, then renews it every retry
 * period; if no renewal succeeds for the renew deadline, or another replica holds the Lease,
 * leadership ends ({@code onStop}) and the thread contends again. The calls to the API server
 * ({@link LeaseCalls}: how a Lease is judged free, expired or held) run on a second thread and
 * are abandoned at the renew deadline, so a hung call cannot keep a replica leading past it.
 *
 * <p>{@code fabric8}'s own {@code LeaderElector} is not used: with a client that fails other
 * than by {@code KubernetesClientException} its renew loop ends without reporting the loss,
 * and after a loss it never contends again.
 */
final class LeaseElector {
  private static final Logger log = LoggerFactory.getLogger(LeaseElector.class);

  private final LeaderElection config;
  private final String name;
  private final Runnable onStart;
  private final Runnable onStop;
  private final Thread loop;
  private final LeaseCalls calls;
  private volatile boolean stopping;
  private volatile boolean leading;

  LeaseElector(KubernetesClient client, LeaderElection config, String name, Runnable onStart,
      Runnable onStop) {
    this.config = config;
    this.name = name;
    this.onStart = onStart;
    this.onStop = onStop;
    this.loop = new Thread(this::run, "workqueue-lease-" + name);
    this.loop.setDaemon(true);
    this.calls = new LeaseCalls(client, config, "workqueue-lease-" + name + "-calls",
        describe());
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
    if (calls.isClosed()) {
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
      calls.release(config.renewDeadline().toNanos()); // it checks the holder itself
    }
    calls.close();
  }

  private void run() {
    try {
      while (!stopping) {
        long tried = System.nanoTime(); // the write lands after this: count the Lease from here
        Boolean taken = calls.tryAcquireOrRenew(false, config.renewDeadline().toNanos());
        if (!Boolean.TRUE.equals(taken)) {
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
      Boolean ok = calls.tryAcquireOrRenew(false, left);
      if (Boolean.TRUE.equals(ok)) {
        deadline = tried + config.renewDeadline().toNanos();
      } else if (Boolean.FALSE.equals(ok)) {
        log.info("lease {}: lost ({}); stopping leading", describe(), calls.refusal());
        return;
      } // null: the call failed; try again until the deadline
    }
  }

  /** The start callback failed: report the end, give the Lease up and wait a retry period. */
  private void stepDown() throws InterruptedException {
    leading = false;
    runCallback(onStop, "stop");
    calls.release(config.renewDeadline().toNanos());
    sleep(jittered(config.retryPeriod().toNanos()));
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
