package dev.workqueue.kubernetes;

import dev.workqueue.controller.Controller;
import dev.workqueue.metrics.Gauge;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several controllers in one process, as controller-runtime's {@code Manager} or JOSDK's {@code
 * Operator}: one client, one informer per watched type and namespace ({@link SharedInformers}),
 * one leader election for all, one health report and one graceful stop.
 *
 * <p>With {@linkplain OperatorBuilder#leaderElection leader election} one elector contends for
 * the Lease. On its gain every Kubernetes controller replays its caches and starts its workers,
 * then the plain controllers start; on its loss all of them stop together (each within half the
 * margin between lease duration and renew deadline, as a lone {@link KubernetesController}'s);
 * every Kubernetes controller's reconcile checks the one elector before it runs. So the
 * controllers of a replica fail over together.
 *
 * <p>With {@linkplain OperatorBuilder#sharding sharding} every replica works, on its share of
 * the keys: one member of one ring per replica (one Lease, {@link ShardRunner}), whose every
 * round queues in each controller the keys it gained, and whose member gates every controller's
 * reconciles. Why one ring and not one per controller: a replica that dies or leaves hands the
 * keys of all its controllers over at once, after one lease, with one Lease to renew; and a
 * key's objects (of one name in one namespace) are on one replica for every controller. The
 * hand-over rules of {@link ShardMember} hold for every controller at once: the member's claims
 * and its reconciles in flight are counted over all of them, so it publishes a view that gives
 * a key away only once no controller reconciles that key here.
 *
 * <p>{@link #stop} is the graceful shutdown: no new reconcile starts, the running ones get the
 * budget (with leader election at most the margin above: past it the Lease may be another
 * replica's), the rest are interrupted; the Lease (the leader's, or the ring member's) is
 * released only if every reconcile ended, else it expires; then the informers stop. {@link
 * #installShutdownHook} runs it on SIGTERM.
 *
 * <p>Thread-safe.
 */
public final class Operator {
  private static final Logger log = LoggerFactory.getLogger(Operator.class);

  private final LeaderElection election; // null: not electing
  private final SharedInformers informers;
  private final List<KubernetesController<?>> kubernetes = new ArrayList<>();
  private final List<Controller<?>> plain;
  private final LeaseElector elector; // null: not electing
  private final ShardRunner ring; // null: not sharded
  private final Gauge leaderStatus; // leader_election_master_status of the Lease
  private final ReentrantLock lifecycle = new ReentrantLock(); // start and stop
  private final ReentrantLock leadership = new ReentrantLock(); // the workers' start and stop
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean started;
  private volatile boolean stopping;
  private volatile boolean leading;
  private volatile boolean stopCalled; // stop() was called: a start that fails then is no error
  private Boolean completed; // the stop's outcome; guarded by lifecycle

  Operator(OperatorBuilder b) {
    this.election = b.election;
    this.informers = new SharedInformers(b.client);
    this.plain = List.copyOf(b.plain);
    this.elector = election == null ? null : new LeaseElector(b.client, election, "operator",
        this::startedLeading, this::stoppedLeading);
    this.leaderStatus = election == null ? Gauge.NOOP
        : b.metrics.newLeaderElectionMasterStatus(election.name());
    leaderStatus.set(0);
    this.ring = b.sharding == null ? null : new ShardRunner(b.client, b.sharding, b.metrics);
    for (KubernetesControllerBuilder<?> cb : b.kubernetes) {
      informers.share(cb);
      cb.ring = ring;
      KubernetesController<?> c = cb.build();
      if (elector != null) {
        c.electedBy(election, elector);
      }
      kubernetes.add(c);
    }
  }

  /**
   * A builder of an operator whose controllers use {@code client}.
   *
   * @param client the one client of every controller, informer and the election
   * @return a builder
   */
  public static OperatorBuilder builder(KubernetesClient client) {
    return new OperatorBuilder(client);
  }

  /**
   * The Kubernetes controllers, in the order they were added: for their caches.
   *
   * @return the controllers
   */
  public List<KubernetesController<?>> controllers() {
    return List.copyOf(kubernetes);
  }

  /**
   * Starts every Kubernetes controller (its informers, shared, and the wait for their caches),
   * then, with leader election, contends for the Lease; without, starts the workers of all,
   * and, sharded, joins the ring (its first round queues each controller's keys).
   * Once only; a start that fails stops what it started.
   *
   * @throws IllegalStateException if already started or stopped, or if a controller's start
   *     fails (its caches did not sync, an informer could not start), or if {@link #stop} was
   *     called meanwhile: the stop does not wait for the caches, it ends their wait
   * @throws InterruptedException if interrupted while waiting for the caches
   */
  public void start() throws InterruptedException {
    lifecycle.lock();
    try {
      if (started || stopping) {
        throw new IllegalStateException("the operator was already "
            + (stopping ? "stopped" : "started"));
      }
      started = true;
      try {
        for (KubernetesController<?> c : kubernetes) {
          c.start(); // without election its workers start once its caches are synced
        }
      } catch (RuntimeException | InterruptedException | Error e) {
        stopping = true;
        for (KubernetesController<?> c : kubernetes) {
          c.stop(Duration.ZERO);
        }
        informers.close();
        stopped.countDown();
        throw e;
      }
      if (elector == null) {
        if (ring != null) {
          ring.start("operator"); // its first round queues each controller's keys from its cache
        }
        leading = true;
        plain.forEach(Controller::start);
      } else {
        elector.start();
      }
    } finally {
      lifecycle.unlock();
    }
  }

  /** The elector's gain: every controller's workers start, the Kubernetes ones first. */
  private void startedLeading() {
    leadership.lock();
    try {
      if (stopping || leading) {
        return;
      }
      leading = true; // first: a start that throws ends the term, whose stop stops them all
      leaderStatus.set(1);
      log.info("operator: {} leads; starting {} controller(s)", election.identity(),
          kubernetes.size() + plain.size());
      kubernetes.forEach(KubernetesController::startedLeading);
      plain.forEach(Controller::start);
    } finally {
      leadership.unlock();
    }
  }

  /** The elector's loss: every controller's workers stop, all at once. */
  private void stoppedLeading() {
    leadership.lock();
    try {
      if (!leading) {
        return; // stop() ended the leadership first
      }
      leading = false;
      leaderStatus.set(0);
      log.info("operator: {} no longer leads; stopping every controller", election.identity());
      Duration margin = election.leaseDuration().minus(election.renewDeadline()).dividedBy(2);
      List<Step> steps = new ArrayList<>();
      kubernetes.forEach(c -> steps.add(new Step(c.name(), () -> {
        c.stoppedLeading();
        return true;
      })));
      plain.forEach(c -> steps.add(new Step(c.name(), () -> c.stop(margin).completed())));
      Step.allAtOnce(steps);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      leadership.unlock();
    }
  }

  /**
   * Whether this replica's workers run: with leader election, while it holds the Lease;
   * without (sharded or not), from {@link #start} to {@link #stop}.
   *
   * @return true while leading
   */
  public boolean isLeading() {
    return leading;
  }

  /**
   * Stops gracefully: no controller starts a new reconcile; the running ones get {@code budget}
   * to finish, all at once (with leader election at most half the margin between lease duration
   * and renew deadline), then their workers are interrupted; the Lease, if held, is released only
   * if every reconcile ended (else it expires, so no replica starts while one of ours runs); the
   * informers stop. The release may add up to a renew deadline if the API server does not
   * answer. Sharded, the ring's member stops starting reconciles at once and keeps renewing its
   * Lease while the running ones end (its keys are still its own), then deletes it (waiting up
   * to {@code budget} more for that), so the others take its keys at their next round. A
   * second call returns the first one's outcome at once.
   *
   * @param budget how long running reconciles may take
   * @return true if every reconcile ended within the budget
   * @throws InterruptedException if interrupted while waiting for the workers
   */
  public boolean stop(Duration budget) throws InterruptedException {
    Objects.requireNonNull(budget, "budget must not be null");
    stopCalled = true;
    kubernetes.forEach(KubernetesController::cancelStart); // a start waiting for caches ends
    lifecycle.lock(); // after that start has stopped what it started
    try {
      if (completed != null) {
        return completed;
      }
      stopping = true;
      if (ring != null) {
        ring.member().leave(); // no controller starts a reconcile; the Lease goes once all end
      }
      boolean all;
      leadership.lock();
      try {
        leading = false; // the elector's report of the end finds the workers stopped
        leaderStatus.set(0);
        Duration workers = elector == null ? budget : min(budget,
            election.leaseDuration().minus(election.renewDeadline()).dividedBy(2));
        List<Step> steps = new ArrayList<>();
        kubernetes.forEach(c -> steps.add(new Step(c.name(), () -> c.stop(budget).completed())));
        plain.forEach(c -> steps.add(new Step(c.name(), () -> c.stop(workers).completed())));
        all = Step.allAtOnce(steps);
      } finally {
        leadership.unlock();
      }
      if (elector != null) {
        elector.stop(all); // after the workers: released only if none still runs
      }
      leaveRing(all, budget);
      informers.close();
      completed = all;
      log.info("operator stopped; every reconcile ended: {}", all);
      return all;
    } finally {
      stopped.countDown();
      lifecycle.unlock();
    }
  }

  /**
   * Leaves the ring if every reconcile ended: the Lease is deleted, so the others take this
   * replica's keys at their next round; else it is only no longer renewed, and expires.
   */
  private void leaveRing(boolean all, Duration timeout) throws InterruptedException {
    if (ring == null) {
      return;
    }
    if (all) {
      ring.leave(timeout);
    } else {
      ring.abandon();
    }
  }

  /**
   * The members of the shard ring this replica splits the keys among now, for every controller;
   * empty if not {@linkplain OperatorBuilder#sharding sharded}.
   *
   * @return the live members' identities, sorted
   */
  public List<String> shardMembers() {
    return ring == null ? List.of() : ring.member().members();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * Waits until {@link #stop} has ended (or a start has failed).
   *
   * @throws InterruptedException if interrupted while waiting
   */
  public void awaitStop() throws InterruptedException {
    stopped.await();
  }

  /**
   * Stops the operator with {@code budget} when the JVM shuts down: on SIGTERM (a pod being
   * deleted), SIGINT or {@code System.exit}. Give a budget below the pod's {@code
   * terminationGracePeriodSeconds} (30 s by default), leaving time for the Lease's release.
   *
   * @param budget the {@link #stop} budget
   * @return this operator
   */
  public Operator installShutdownHook(Duration budget) {
    Objects.requireNonNull(budget, "budget must not be null");
    AtomicBoolean once = new AtomicBoolean();
    Thread hook = new Thread(() -> {
      if (once.compareAndSet(false, true)) {
        try {
          log.info("operator: shutting down; reconciles get {}", budget);
          stop(budget);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }, "workqueue-operator-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    return this;
  }

  /**
   * For a {@code main}: installs the shutdown hook ({@link #installShutdownHook}), starts the
   * operator and waits until it is stopped. A SIGTERM while the caches sync ends the start at
   * once, and this method returns once the stop has ended.
   *
   * @param budget the {@link #stop} budget on shutdown
   * @throws InterruptedException if interrupted while starting or waiting
   */
  public void runUntilShutdown(Duration budget) throws InterruptedException {
    installShutdownHook(budget);
    try {
      start();
    } catch (IllegalStateException e) {
      if (!stopCalled) {
        throw e;
      }
      log.info("operator: stopped while starting: {}", e.getMessage()); // SIGTERM while syncing
    }
    awaitStop();
  }

  /**
   * Every controller's health, by name: live iff all are live, ready iff all are ready.
   *
   * @return a snapshot
   */
  public OperatorHealth health() {
    Map<String, Health> all = new LinkedHashMap<>();
    kubernetes.forEach(c -> all.put(c.name(), c.health()));
    Health.Leadership role = elector == null ? Health.Leadership.NOT_ELECTING
        : leading ? Health.Leadership.LEADING : Health.Leadership.STANDING_BY;
    plain.forEach(c -> all.put(c.name(), new Health(started, role, c.status(), List.of(),
        Optional.empty())));
    return new OperatorHealth(all);
  }
}
