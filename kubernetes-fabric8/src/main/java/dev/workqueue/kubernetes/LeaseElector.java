package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease with client-go's rules, for {@link KubernetesController}. One
 * thread contends: it takes the Lease when it is free or expired, then renews it every retry
 * period; if no renewal succeeds by the renew deadline, or another replica holds the Lease,
 * leadership ends and the thread contends again after a retry period. The calls to the API
 * server ({@link LeaseCalls}: how a Lease is judged free, expired or held) run on a second
 * thread and are abandoned at the deadline, so a hung call cannot keep a replica leading past
 * it. The start and stop callbacks run on a third ({@link LeaderCallbacks}): a start that takes
 * seconds (the workers, a replay of every cache) goes on beside the renewals, and the stop of a
 * leadership runs after its start returned, never before or during it. A start that throws
 * ends the leadership (stop callback, release of the Lease), as a lost Lease does.
 *
 * <p>A leader also watches its Lease ({@link LeaseWatch}): the moment the Lease is deleted or
 * names another holder, {@link #isLeading} turns false, which the controller checks before each
 * reconcile (no new one starts; the key is not requeued, as the next leader replays every
 * cache), and the loop ends the leadership (stop callback) and contends again after a retry
 * period. A renewal that finds the Lease deleted ends the leadership the same way, though
 * client-go creates the Lease again there: with the watch the leader has usually stepped down
 * already, and a deletion must mean one thing whichever of the two sees it first (whoever
 * contends next, this replica included, creates it).
 *
 * <p>What remains of two leaders at once after a deletion or an overwrite (which, unlike an
 * expiry, lets the next leader start at once, without the margin): (1) reconciles the old
 * leader had started before its gate closed run on until they end or the stop callback's
 * interrupt ends them (the workers get half the margin between lease duration and renew
 * deadline); (2) a reconcile may start in the time the watch event takes to reach the old
 * leader (milliseconds on a healthy connection; while the watch is broken, until the next
 * renewal reads the Lease, at most a retry period and the call, or the renew deadline); (3) a
 * reconcile that passed the gate a moment before it closed. Only optimistic concurrency closes
 * these: a reconciler should write with resourceVersion preconditions, so that a stale
 * leader's write fails with 409.
 *
 * <p>{@code fabric8}'s own {@code LeaderElector} is not used: with a client that fails other
 * than by {@code KubernetesClientException} its renew loop ends without reporting the loss,
 * and after a loss it never contends again.
 */

/*
 * The renew deadline: when does a leader stop trusting its Lease?
 *
 * Let L be the lease duration, R the renew deadline, and a successful call (a take or a
 * renewal) be sent at s and return at r. The other replicas count L from the moment they first
 * read the version this call wrote; the write was stored after s, so no other replica takes the
 * Lease before s + L (monotonic clocks running at the same rate: client-go's assumption too).
 * Once this leader's deadline D passes, its workers get M = (L - R) / 2 to stop (the
 * controller's stop margin). One leader at a time therefore needs D + M <= s + L, that is
 * D <= s + (L + R) / 2.
 *
 * client-go counts R from when the call returned: D = r + R. That is what a replica means by
 * "renew within R", and it does not punish a slow call: with the old count from s, a first call
 * that took 1.7 s left 0.3 s of a 2 s deadline, and the leader stepped down before its first
 * renewal. But r + R alone breaks the bound above when r - s > M: with L = 15 s, R = 10 s, a
 * call of 4 s gives D = s + 14 s and leaves the workers 1 s instead of 2.5 s. So
 *
 *     D = min(r + R, s + (L + R) / 2)
 *
 * for the first window and for every renewal after it. Worked example, the defaults (L 15 s,
 * R 10 s): a call of up to M = 2.5 s gets the full 10 s from its return; a call of 4 s gets
 * D = s + 12.5 s, 8.5 s from its return. The window is never empty: the take is abandoned after
 * R, so D - r > (L + R) / 2 - R = M; a renewal is abandoned at the deadline before it, which
 * is less than (L + R) / 2 after the renewal's send, so D - r > 0.
 */
final class LeaseElector {
  private static final Logger log = LoggerFactory.getLogger(LeaseElector.class);

  private final LeaderElection config;
  private final String name;
  private final Thread loop;
  private final LeaseCalls calls;
  private final LeaderCallbacks callbacks;
  private final Semaphore wakeUp = new Semaphore(0); // a term's loss wakes the loop at once
  private volatile boolean stopping;
  private volatile Term term; // the leadership now; null while standing by

  /** One leadership, from the take of the Lease to its loss. */
  private final class Term {
    volatile long deadline; // System.nanoTime() by which a renewal must succeed
    final AtomicReference<String> lost = new AtomicReference<>(); // why it ended
    volatile boolean startFailed;
    LeaseWatch watch; // the loop thread's; null until opened

    Term(long deadline) {
      this.deadline = deadline;
    }

    void lose(String why) {
      if (lost.compareAndSet(null, why)) {
        wakeUp.release();
      }
    }
  }

  LeaseElector(KubernetesClient client, LeaderElection config, String name, Runnable onStart,
      Runnable onStop) {
    this.config = config;
    this.name = name;
    this.loop = new Thread(this::run, "workqueue-lease-" + name);
    this.loop.setDaemon(true);
    this.calls = new LeaseCalls(client, config, "workqueue-lease-" + name + "-calls",
        describe());
    this.callbacks = new LeaderCallbacks(onStart, onStop,
        "workqueue-lease-" + name + "-callbacks", describe());
  }

  void start() {
    loop.start();
  }

  /**
   * Whether this replica leads now: it took the Lease, has not lost it, and its renew deadline
   * has not passed. Any thread.
   */
  boolean isLeading() {
    Term t = term;
    return t != null && t.lost.get() == null && System.nanoTime() - t.deadline < 0;
  }

  /**
   * Stops contending; if leading, reports the end ({@code onStop}, after the start callback
   * returned). With {@code release}, gives the Lease up so that another replica need not wait
   * for it to expire: only when the caller knows that no reconcile of this replica still runs.
   */
  void stop(boolean release) throws InterruptedException {
    if (calls.isClosed()) {
      return; // stopped before
    }
    stopping = true;
    loop.interrupt();
    loop.join();
    Term t = term;
    if (t != null) {
      t.lose("stopped");
      end(t);
    }
    callbacks.close();
    if (release) {
      calls.release(config.renewDeadline().toNanos()); // it checks the holder itself
    }
    calls.close();
  }

  private void run() {
    try {
      while (!stopping) {
        long sent = System.nanoTime();
        Boolean taken = calls.tryAcquireOrRenew(false, config.renewDeadline().toNanos());
        long returned = System.nanoTime();
        if (!Boolean.TRUE.equals(taken)) {
          sleep(jittered(config.retryPeriod().toNanos()));
          continue;
        }
        Term t = new Term(deadlineAfter(sent, returned, config));
        wakeUp.drainPermits();
        term = t;
        callbacks.start(() -> {
          t.startFailed = true; // leading without workers would stall every replica
          t.lose("the start callback threw");
        });
        watch(t);
        renew(t);
        end(t);
        if (t.startFailed) {
          calls.release(config.renewDeadline().toNanos()); // let another lead
        }
        sleep(jittered(config.retryPeriod().toNanos())); // the others' turn first
      }
    } catch (InterruptedException e) {
      // stop() interrupts; it reports the end itself
    }
  }

  /**
   * Renews every retry period until the term is lost: no renewal succeeded by the deadline,
   * another replica holds the Lease, or the start callback threw.
   */
  private void renew(Term t) throws InterruptedException {
    while (true) {
      long wait = Math.min(config.retryPeriod().toNanos(), t.deadline - System.nanoTime());
      if (wait > 0) {
        wakeUp.tryAcquire(wait, TimeUnit.NANOSECONDS); // a permit: the term was lost
      }
      if (t.lost.get() != null) {
        log.info("lease {}: {}; stopping leading", describe(), t.lost.get());
        return;
      }
      long sent = System.nanoTime();
      long left = t.deadline - sent;
      if (left <= 0) {
        t.lose("not renewed within " + config.renewDeadline());
        log.warn("lease {}: not renewed within {}; stopping leading", describe(),
            config.renewDeadline());
        return;
      }
      Boolean ok = calls.tryAcquireOrRenew(true, left);
      long returned = System.nanoTime();
      if (Boolean.TRUE.equals(ok)) {
        t.deadline = deadlineAfter(sent, returned, config);
        if (t.watch == null || t.watch.isClosed()) {
          watch(t); // it did not open, or the API server ended it
        }
      } else if (Boolean.FALSE.equals(ok)) {
        t.lose(calls.refusal());
      } // null: the call failed; try again until the deadline
    }
  }

  /**
   * Watches the Lease from now on (the take, or a renewal, is written), so that a deletion or
   * another holder ends the term at once rather than at the next renewal.
   */
  private void watch(Term t) {
    if (t.watch != null) {
      t.watch.close();
    }
    t.watch = calls.watch(t::lose);
  }

  /** Ends a term: no reconcile starts from now; the stop callback runs after the start. */
  private void end(Term t) throws InterruptedException {
    term = null;
    if (t.watch != null) {
      t.watch.close();
    }
    callbacks.stop();
  }

  /**
   * The renew deadline after a successful call sent at {@code sent} that returned at {@code
   * returned}: see the class comment.
   */
  static long deadlineAfter(long sent, long returned, LeaderElection config) {
    long renew = config.renewDeadline().toNanos();
    long fromReturn = returned + renew;
    long cap = sent + (config.leaseDuration().toNanos() + renew) / 2;
    return fromReturn - cap < 0 ? fromReturn : cap;
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
