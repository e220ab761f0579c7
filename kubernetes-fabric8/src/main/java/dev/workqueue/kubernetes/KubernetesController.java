package dev.workqueue.kubernetes;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.ControllerBuilder;
import dev.workqueue.controller.ReconcileContext;
import dev.workqueue.controller.Result;
import dev.workqueue.controller.StopResult;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Gauge;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A controller for one kind of Kubernetes object, as controller-runtime's {@code
 * NewControllerManagedBy(mgr).For(..).Owns(..).Watches(..)}: informers for the reconciled type
 * and the types it owns or watches, whose events put {@link ObjectKey}s on a toolkit {@link
 * Controller}, and a reconciler that gets each key with the object from the cache.
 *
 * <p>{@link #start} starts the informers and returns once their caches are synced; then the
 * workers start, or, with {@linkplain KubernetesControllerBuilder#leaderElection leader
 * election}, they run only while this replica holds the Lease. On every gain of the Lease the
 * caches are replayed through the event handlers, so a key changed while another replica led, or
 * while none did, is reconciled: none is lost across a failover. The replay is queued before the
 * workers start, below real changes ({@link KubernetesControllerBuilder#priorities}). On the
 * loss of the Lease the workers stop (within half the margin between lease duration and renew
 * deadline, if their reconciles end when interrupted) and the replica stands by with warm caches.
 *
 * @param <R> the type of the reconciled objects
 */
public final class KubernetesController<R extends HasMetadata> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KubernetesController.class);

  private final KubernetesClient client;
  private final String name;
  private final List<Watches.Source<?>> sources;
  private final Watches watches;
  private LeaderElection election; // null: always leading; an Operator's is set before start
  private final Duration cacheSyncTimeout;
  private final Controller<ObjectKey> core;
  private final AddPriorities adds; // at the event or the replay priority
  private final Gauge leaderStatus; // leader_election_master_status of the Lease
  private final PeriodicResync resync;

  private final ReentrantLock lifecycle = new ReentrantLock(); // start and stop
  private final ReentrantLock leadership = new ReentrantLock(); // the workers' start and stop
  private volatile ObjectCache<R> cache;
  private volatile boolean started;
  private volatile boolean stopping;
  private volatile boolean leading;
  private volatile LeaseElector elector;
  private volatile boolean sharedElector; // an Operator's: it starts and stops it
  private final ShardParticipant shards; // null: not sharded

  KubernetesController(KubernetesControllerBuilder<R> b) {
    this.client = b.client;
    this.name = b.name;
    this.sources = List.copyOf(b.allSources());
    this.watches = new Watches(client, name, b.namespace, b.informers, b.informerErrors, b.clock);
    this.election = b.election;
    this.cacheSyncTimeout = b.cacheSyncTimeout;
    this.resync = new PeriodicResync(b.clock, b.resync == null ? 0 : b.resync.toNanos(),
        watches::resyncPrimary, () -> leading && !stopping);
    ControllerBuilder<ObjectKey> cb = Controller.<ObjectKey>builder(name).clock(b.clock);
    ControllerMetricsProvider metrics =
        b.metrics == null ? ControllerMetricsProvider.noop() : b.metrics;
    cb.metricsProvider(metrics).priorityQueue(true); // the options may say otherwise
    this.leaderStatus = election == null ? Gauge.NOOP
        : metrics.newLeaderElectionMasterStatus(election.name());
    leaderStatus.set(0);
    if (b.maxReconcileInterval != null) {
      cb.maxReconcileInterval(b.maxReconcileInterval, key -> {
        ObjectCache<R> c = cache;
        return c == null || c.get(key).isPresent();
      });
    }
    if (b.options != null) {
      b.options.accept(cb);
    }
    ObjectReconciler<R> reconciler = b.reconciler;
    this.shards = ShardRunner.participant(b.ring, b.sharding, client, metrics, () -> cache,
        this::gained);
    cb.reconciler((ObjectKey key, ReconcileContext context) -> {
      LeaseElector e = elector;
      if (e != null && !e.isLeading()) {
        return Result.success(); // the Lease is lost: the next leader replays every cache
      }
      Callable<Result> reconcile =
          () -> reconciler.reconcile(new Request<>(key, cache.get(key), context));
      return shards == null ? reconcile.call() : shards.reconcileHeld(key, reconcile);
    });
    this.core = AddPriorities.build(cb);
    this.adds = new AddPriorities(core, b.eventPriority, b.replayPriority);
  }

  /**
   * A builder of a controller for objects of {@code type}.
   *
   * @param <R> the type of the reconciled objects
   * @param client the client the informers and the election use
   * @param type the reconciled objects' class, such as {@code Deployment.class}
   * @return a builder
   */
  public static <R extends HasMetadata> KubernetesControllerBuilder<R> builder(
      KubernetesClient client, Class<R> type) {
    return new KubernetesControllerBuilder<>(client, type);
  }

  /**
   * The controller's name: its metrics' {@code controller} label and its workers' thread names.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Starts the informers, waits until their caches are synced, then starts the workers, or,
   * with leader election, starts contending for the Lease. Once only: a start that fails (the
   * caches did not sync, an informer could not start, an interrupt) stops what it started and
   * leaves the controller stopped for good, and not {@linkplain Health#isLive() live}.
   *
   * @throws IllegalStateException if already started or stopped, if an informer cannot start,
   *     if the caches did not sync within the builder's {@code cacheSyncTimeout}, or if {@link
   *     #stop} was called meanwhile (the stop does not wait for the caches)
   * @throws InterruptedException if interrupted while waiting for the caches
   */
  public void start() throws InterruptedException {
    lifecycle.lock();
    try {
      if (started || stopping) {
        throw new IllegalStateException("controller " + name + " was already "
            + (stopping ? "stopped" : "started"));
      }
      started = true;
      try {
        watches.startAll(sources, key -> fromEvent(key, false), key -> fromEvent(key, true),
            () -> cache = new ObjectCache<>(watches.<R>primary()), cacheSyncTimeout);
        if (stopping) {
          throw new IllegalStateException("controller " + name + " was stopped while starting");
        }
      } catch (RuntimeException | InterruptedException | Error e) {
        stopping = true;
        watches.close();
        throw e;
      }
      if (election == null) {
        leading = true;
        if (shards != null) {
          shards.start(name); // its first round enqueues the keys it owns from the cache
        }
        core.start(); // the initial lists' keys are queued already
        resync.schedule();
      } else if (!sharedElector) {
        contend();
      }
    } finally {
      lifecycle.unlock();
    }
  }

  /** Ends a start waiting for the caches (it throws, "stopped while..."): a stop's first step. */
  void cancelStart() {
    stopping = true;
    watches.cancelStart();
  }

  void electedBy(LeaderElection config, LeaseElector shared) { // an Operator's, before start
    election = config;
    elector = shared;
    sharedElector = true;
  }

  /** Where an informer's handler puts a key: the queue, unless another shard member owns it. */
  private void fromEvent(ObjectKey key, boolean noChange) {
    if (shards == null || shards.admits(key)) {
      adds.add(key, noChange); // the others' keys are theirs: filtered at the handler
    }
  }

  private void gained(ObjectKey key) {
    adds.add(key, true); // a shard's gain: no change
  }

  /**
   * The members of the shard ring this replica splits the keys among now; empty if not
   * sharded.
   *
   * @return the live members' identities, sorted
   */
  public List<String> shardMembers() {
    return shards == null ? List.of() : shards.member().members();
  }

  private void contend() {
    LeaseElector e = new LeaseElector(client, election, name, this::startedLeading,
        this::stoppedLeading);
    elector = e;
    e.start();
  }

  void startedLeading() {
    leadership.lock();
    try {
      if (stopping || leading) {
        return;
      }
      log.info("controller {}: {} leads; starting the workers on a replay of the caches", name,
          election.identity());
      // Keys changed while another replica (or none) led. Queued before the workers start, so
      // each is queued once, merged with those queued or kept while standing by.
      watches.replay();
      core.start();
      leading = true;
      leaderStatus.set(1);
      resync.schedule();
    } finally {
      leadership.unlock();
    }
  }

  void stoppedLeading() {
    leadership.lock();
    try {
      if (!leading) {
        return; // stop() ended the leadership first; the elector reports it too
      }
      leading = false;
      leaderStatus.set(0);
      resync.cancel();
      log.info("controller {}: {} no longer leads; stopping the workers", name,
          election.identity());
      core.stop(margin());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      leadership.unlock();
    }
  }

  /**
   * Whether this replica's workers run: always after {@link #start} without leader election;
   * with it, while this replica holds the Lease.
   *
   * @return true while leading
   */
  public boolean isLeading() {
    return leading;
  }

  /**
   * The controller's health, for liveness and readiness probes: caches, watches, leadership,
   * workers and queue, and why it cannot recover if it cannot ({@link Health} says what makes it
   * not ready, not live). A watch's outage is timed from the first call that finds it down.
   *
   * @return a snapshot
   */
  public Health health() {
    List<Health.Watch> report = watches.report();
    boolean synced = started && watches.synced();
    Health.Leadership role = shards != null
        ? (shards.member().isCutOff() ? Health.Leadership.SHARD_MEMBER_CUT_OFF
            : Health.Leadership.SHARD_MEMBER)
        : election == null ? Health.Leadership.NOT_ELECTING
        : leading ? Health.Leadership.LEADING : Health.Leadership.STANDING_BY;
    return new Health(synced, role, core.status(), report, watches.failure(report));
  }

  /**
   * The cache of the reconciled objects.
   *
   * @return the cache
   * @throws IllegalStateException before {@link #start}
   */
  public ObjectCache<R> cache() {
    ObjectCache<R> c = cache;
    if (c == null) {
      throw new IllegalStateException("controller " + name + " is not started");
    }
    return c;
  }

  /**
   * The cache of an owned or watched type (or of the reconciled one), for a reconciler that
   * reads related objects without a request to the API server.
   *
   * @param <X> the objects' type
   * @param type the class given to {@code owns}, {@code watches} or the builder
   * @return the cache of the informer for {@code type}
   * @throws IllegalStateException before {@link #start}
   * @throws IllegalArgumentException if the controller does not watch {@code type}
   */
  @SuppressWarnings("unchecked")
  public <X extends HasMetadata> ObjectCache<X> cache(Class<X> type) {
    cache(); // started?
    SharedIndexInformer<X> informer = watches.informer(type);
    if (informer != null) {
      return new ObjectCache<>(informer);
    }
    throw new IllegalArgumentException("type must be one the controller watches, was "
        + type.getSimpleName());
  }

  /**
   * The toolkit controller that runs the reconciles: to add keys by hand ({@code add}, {@code
   * addAfter}) or read its {@code status()}. Do not start or stop it: this controller does, as
   * leadership comes and goes.
   *
   * @return the controller
   */
  public Controller<ObjectKey> controller() {
    return core;
  }

  /**
   * Stops the workers as {@link Controller#stop} does, stops contending, and stops the
   * informers (a caller's informer only loses this controller's handler). The Lease, if held,
   * is released only if every reconcile finished: otherwise it expires by itself, so that no
   * other replica starts while one still runs. With leader election the workers get at most
   * half the margin between the lease duration and the renew deadline (the time the Lease is
   * surely still ours), whatever {@code timeout} says.
   *
   * @param timeout how long running reconciles may take to finish
   * @return what the workers' stop reports
   * @throws InterruptedException if interrupted while waiting for the workers
   */
  public StopResult<ObjectKey> stop(Duration timeout) throws InterruptedException {
    Objects.requireNonNull(timeout, "timeout must not be null");
    cancelStart();
    StopResult<ObjectKey> result;
    leadership.lock();
    try {
      leading = false; // the elector's report of the end finds the workers stopped
      leaderStatus.set(0);
      resync.cancel();
      if (shards != null) {
        shards.member().leave(); // no new reconcile; the Lease goes once the running ones end
      }
      result = core.stop(election == null || timeout.compareTo(margin()) < 0 ? timeout
          : margin());
    } finally {
      leadership.unlock();
    }
    lifecycle.lock(); // after a start in progress: it saw stopping, or started what is stopped here
    try {
      if (core.isRunning()) { // a start that had passed its check before stopping was set
        result = core.stop(election == null ? timeout : margin());
      }
      LeaseElector e = elector;
      if (e != null && !sharedElector) {
        e.stop(result.completed());
      }
      if (shards != null) {
        if (result.completed()) {
          shards.leave(timeout); // the others take its keys at once, not after a lease
        } else {
          shards.abandon(); // reconciles still run: the others wait for the Lease to expire
        }
      }
      watches.close();
    } finally {
      lifecycle.unlock();
    }
    return result;
  }

  /** Half the time between the renew deadline and the Lease's expiry. */
  private Duration margin() {
    return election.leaseDuration().minus(election.renewDeadline()).dividedBy(2);
  }

  /**
   * {@link #stop} with 30 s for running reconciles, for try-with-resources: it throws no
   * checked exception; an interrupt of the calling thread does not cut the stop short and stays
   * set for the caller.
   */
  @Override
  public void close() {
    boolean interrupted = Thread.interrupted();
    try {
      stop(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
