package dev.workqueue.kubernetes;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.controller.ControllerBuilder;
import dev.workqueue.metrics.ControllerMetricsProvider;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Builds a {@link KubernetesController}: {@code KubernetesController.builder(client, type)}.
 *
 * @param <R> the type of the reconciled objects
 */
public final class KubernetesControllerBuilder<R extends HasMetadata> {
  final KubernetesClient client;
  final Class<R> type;
  final List<Watches.Source<?>> sources = new ArrayList<>();
  String name;
  String namespace;
  EventFilter<? super R> filter;
  ObjectReconciler<R> reconciler;
  LeaderElection election;
  Sharding sharding;
  ShardRunner ring; // an operator's ring, set by the operator before it builds
  Consumer<ControllerBuilder<ObjectKey>> options;
  ControllerMetricsProvider metrics;
  Clock clock = Clock.system();
  final Map<Class<?>, SharedIndexInformer<?>> informers = new java.util.HashMap<>();
  /** The exception handlers' records of an operator's informers (a caller's: none known). */
  final Map<Class<?>, InformerErrors> informerErrors = new java.util.HashMap<>();
  Duration resync;
  Duration maxReconcileInterval;
  Duration cacheSyncTimeout = Duration.ofMinutes(2);
  int eventPriority;
  int replayPriority = PriorityWorkQueue.LOW_PRIORITY;
  EventTracer eventTracer;
  String traceparentAnnotation;

  KubernetesControllerBuilder(KubernetesClient client, Class<R> type) {
    this.client = Objects.requireNonNull(client, "client must not be null");
    this.type = Objects.requireNonNull(type, "type must not be null");
    this.name = HasMetadata.getKind(type).toLowerCase(Locale.ROOT);
  }

  /**
   * The controller's name; the default is the kind in lower case.
   *
   * @param name the name
   * @return this builder
   */
  public KubernetesControllerBuilder<R> name(String name) {
    Objects.requireNonNull(name, "name must not be null");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
    return this;
  }

  /**
   * Watches one namespace only (cluster-scoped types are watched whole); the default is
   * every namespace.
   *
   * @param namespace the namespace
   * @return this builder
   */
  public KubernetesControllerBuilder<R> inNamespace(String namespace) {
    Objects.requireNonNull(namespace, "namespace must not be null");
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("namespace must not be empty");
    }
    this.namespace = namespace;
    return this;
  }

  /**
   * Reconciles the controller owner of each object of {@code owned} that changes (see
   * {@link EnqueueHandler#forOwner}).
   *
   * @param owned the owned objects' class, such as {@code ReplicaSet.class}
   * @return this builder
   */
  public KubernetesControllerBuilder<R> owns(Class<? extends HasMetadata> owned) {
    Objects.requireNonNull(owned, "owned must not be null");
    addSource(owned, sink -> EnqueueHandler.forOwner(type, sink));
    return this;
  }

  /**
   * Reconciles the keys {@code mapper} gives for each object of {@code watched} that changes
   * (see {@link EnqueueHandler#mapped}).
   *
   * @param <X> the watched type
   * @param watched the watched objects' class
   * @param mapper the keys of the reconciled objects an object of {@code watched} affects
   * @return this builder
   */
  public <X extends HasMetadata> KubernetesControllerBuilder<R> watches(Class<X> watched,
      Function<? super X, ? extends Collection<ObjectKey>> mapper) {
    Objects.requireNonNull(watched, "watched must not be null");
    Objects.requireNonNull(mapper, "mapper must not be null");
    addSource(watched, sink -> EnqueueHandler.mapped(mapper, sink));
    return this;
  }

  private <X extends HasMetadata> void addSource(Class<X> t,
      Function<Consumer<ObjectKey>, EnqueueHandler<X>> handler) {
    sources.add(new Watches.Source<>(t, handler));
  }

  /**
   * Drops the reconciled type's events that {@code filter} does not pass (owned and watched
   * types are not filtered).
   *
   * @param filter which events of the reconciled objects enqueue their keys
   * @return this builder
   */
  public KubernetesControllerBuilder<R> withEventFilter(EventFilter<? super R> filter) {
    this.filter = Objects.requireNonNull(filter, "filter must not be null");
    return this;
  }

  /**
   * Opens a span for each informer event that queues keys (see {@link EventTracer}); with a
   * controller tracer ({@code controller(b -> b.tracer(...))}) the reconciles link to them. The
   * initial list and resyncs are events too. If {@code traceparentAnnotation} is given, an
   * event's span joins the trace in that annotation of the object, if it has one: a change made
   * by another traced system (which wrote its W3C {@code traceparent} there) continues that
   * system's trace. Default: none.
   *
   * @param tracer opens each event's span, such as OpenTelemetryTracing's {@code startEvent}
   * @param traceparentAnnotation the annotation to read, such as {@link
   *     EventTracer#TRACEPARENT_ANNOTATION}; null to read none
   * @return this builder
   * @throws NullPointerException if {@code tracer} is null
   * @throws IllegalArgumentException if {@code traceparentAnnotation} is empty
   */
  public KubernetesControllerBuilder<R> eventTracer(EventTracer tracer,
      String traceparentAnnotation) {
    Objects.requireNonNull(tracer, "tracer must not be null");
    if (traceparentAnnotation != null && traceparentAnnotation.isEmpty()) {
      throw new IllegalArgumentException("traceparentAnnotation must not be empty");
    }
    this.eventTracer = tracer;
    this.traceparentAnnotation = traceparentAnnotation;
    return this;
  }

  /**
   * The reconciler; required.
   *
   * @param reconciler called with each key and the cached object
   * @return this builder
   */
  public KubernetesControllerBuilder<R> reconciler(ObjectReconciler<R> reconciler) {
    this.reconciler = Objects.requireNonNull(reconciler, "reconciler must not be null");
    return this;
  }

  /**
   * Runs the workers only while this replica holds the Lease.
   *
   * @param election the Lease and durations
   * @return this builder
   */
  public KubernetesControllerBuilder<R> leaderElection(LeaderElection election) {
    this.election = Objects.requireNonNull(election, "election must not be null");
    return this;
  }

  /**
   * Active-active replicas that split the keys over a ring of Leases (see {@link Sharding}):
   * each replica reconciles the keys rendezvous hashing gives it, and a key moves to another
   * replica only after its previous owner finished with it. Not with {@link #leaderElection}.
   *
   * @param sharding the ring, this replica's identity and the durations
   * @return this builder
   */
  public KubernetesControllerBuilder<R> sharding(Sharding sharding) {
    this.sharding = Objects.requireNonNull(sharding, "sharding must not be null");
    return this;
  }

  /**
   * Settings of the toolkit controller that runs the reconciles: workers, retries, rate
   * limiter, reconcile timeout, queue. Its reconciler is this builder's; set the clock and the
   * metrics provider on this builder ({@link #clock}, {@link #metricsProvider}), which also
   * drive the resync and the leader-election gauge. Its queue is a {@link PriorityWorkQueue}
   * unless {@code options} say {@code priorityQueue(false)} or give a queue of their own (see
   * {@link #priorities}).
   *
   * @param options applied to the controller's builder
   * @return this builder
   */
  public KubernetesControllerBuilder<R> controller(Consumer<ControllerBuilder<ObjectKey>> options) {
    this.options = Objects.requireNonNull(options, "options must not be null");
    return this;
  }

  /**
   * Uses the caller's {@code informer} for the objects of {@code type} (the reconciled, an
   * owned or a watched type) instead of making one, as controller-runtime shares the
   * manager's informers: the controller adds its handler, starts the informer if it is not
   * running, waits for its cache and never stops it (its owner does). Its scope (namespace,
   * labels) is the informer's.
   *
   * @param <X> the objects' type
   * @param type the objects' class, as given to the builder
   * @param informer an informer of objects of {@code type}
   * @return this builder
   */
  public <X extends HasMetadata> KubernetesControllerBuilder<R> withInformer(Class<X> type,
      SharedIndexInformer<X> informer) {
    Objects.requireNonNull(type, "type must not be null");
    Objects.requireNonNull(informer, "informer must not be null");
    informers.put(type, informer);
    return this;
  }

  /**
   * Reconciles every cached object of the reconciled type once per {@code period} while this
   * replica leads, as controller-runtime's {@code SyncPeriod}: a safety net for changes made
   * outside the watched objects. Off by default.
   *
   * @param period the time between two resyncs; positive
   * @return this builder
   */
  public KubernetesControllerBuilder<R> resyncEvery(Duration period) {
    this.resync = positive(period, "period");
    return this;
  }

  /**
   * Reconciles each object at least once per {@code interval}, counted from its own last
   * reconcile (JOSDK's {@code maxReconciliationInterval}); an object deleted from the cache is
   * let go after its next reconcile. Unlike {@link #resyncEvery}, which replays the whole cache
   * at once, this spreads the reconciles over the interval. It is the core controller's
   * {@link ControllerBuilder#maxReconcileInterval(Duration, java.util.function.Predicate)} with
   * "still in the cache" as the filter. Off by default.
   *
   * @param interval the longest time between two reconciles of an object; positive
   * @return this builder
   */
  public KubernetesControllerBuilder<R> maxReconcileInterval(Duration interval) {
    this.maxReconcileInterval = positive(interval, "interval");
    return this;
  }

  /**
   * The clock of the controller (its back-off and timeouts) and of the periodic resync;
   * the system clock by default. Leader election always runs on the system clock.
   *
   * @param clock the clock, such as a {@code FakeClock} in a test
   * @return this builder
   */
  public KubernetesControllerBuilder<R> clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock must not be null");
    return this;
  }

  /**
   * Where the controller's metrics go: controller-runtime's reconcile metrics (as {@code
   * controller(c -> c.metricsProvider(provider))}) and, with leader election, client-go's
   * {@code leader_election_master_status} of the Lease.
   *
   * @param provider the metrics provider, such as a {@code MicrometerMetricsProvider}
   * @return this builder
   */
  public KubernetesControllerBuilder<R> metricsProvider(ControllerMetricsProvider provider) {
    this.metrics = Objects.requireNonNull(provider, "provider must not be null");
    return this;
  }

  /**
   * The priorities the controller queues keys at, as controller-runtime's handlers do: a key
   * from a real change (an informer's add after its initial list, an update with a new
   * resourceVersion, a delete) at {@code eventPriority}; a key queued without a change at
   * {@code replayPriority}: the replay of the caches on each gain of the Lease, the {@linkplain
   * #resyncEvery periodic resync}, the informers' initial lists and resyncs, and the keys a
   * {@linkplain #sharding shard} gains. So a change made while thousands of objects are replayed
   * is reconciled before them, not after; a replayed key that gets a change rises to {@code
   * eventPriority}. Keys added by hand ({@link KubernetesController#controller()}{@code
   * .add(key)}) go in at 0; a retry keeps its key's priority.
   *
   * <p>How long can a replayed key wait? Strict priorities could starve it for good under a
   * steady stream of changes (controller-runtime#3496). The default queue ages keys: one ready
   * for longer than its aging threshold, 5 minutes ({@code
   * WorkQueueBuilder.DEFAULT_AGING_THRESHOLD}), is served ahead of every priority, oldest first.
   * So a replayed key waits behind changes for 5 minutes at most, and then only behind keys that
   * were ready before it. For another bound, give a priority queue of your own: {@code
   * controller(c -> c.queue(() -> WorkQueue.<ObjectKey>builder().agingThreshold(d)
   * .buildPriority(limiter)))}.
   *
   * <p>On a queue without priorities ({@code controller(c -> c.priorityQueue(false))}, or a
   * {@code queue(...)} of non-priority queues) every key goes in at priority 0, first come first
   * served: this setting is then ignored.
   *
   * @param eventPriority the priority of the keys of changes; default 0
   * @param replayPriority the priority of the keys queued without a change; default -100
   *     ({@link PriorityWorkQueue#LOW_PRIORITY}, controller-runtime's); at most {@code
   *     eventPriority} (equal: one line, first come first served)
   * @return this builder
   * @throws IllegalArgumentException if {@code replayPriority} is above {@code eventPriority}
   */
  public KubernetesControllerBuilder<R> priorities(int eventPriority, int replayPriority) {
    if (replayPriority > eventPriority) {
      throw new IllegalArgumentException("replayPriority must not be above eventPriority (a"
          + " replay would go before real changes), was replayPriority " + replayPriority
          + " > eventPriority " + eventPriority);
    }
    this.eventPriority = eventPriority;
    this.replayPriority = replayPriority;
    return this;
  }

  /**
   * How long {@link KubernetesController#start} waits for the caches; default 2 minutes.
   *
   * @param timeout the wait
   * @return this builder
   */
  public KubernetesControllerBuilder<R> cacheSyncTimeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout must not be null");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    this.cacheSyncTimeout = timeout;
    return this;
  }

  /**
   * Builds the controller; nothing runs until {@link KubernetesController#start}.
   *
   * @return the controller
   * @throws IllegalStateException if no reconciler was set
   */
  public KubernetesController<R> build() {
    if (reconciler == null) {
      throw new IllegalStateException("reconciler must be set");
    }
    if (sharding != null && election != null) {
      throw new IllegalStateException("sharding(...) and leaderElection(...) exclude each other:"
          + " sharded replicas all work, each on its share of the keys");
    }
    for (Class<?> t : informers.keySet()) {
      if (t != type && sources.stream().noneMatch(src -> src.type() == t)) {
        throw new IllegalStateException("an informer was given for " + t.getSimpleName()
            + ", which the controller neither reconciles, owns nor watches");
      }
    }
    return new KubernetesController<>(this);
  }

  /** The reconciled type's source, with the event filter, then the owned and watched ones. */
  List<Watches.Source<?>> allSources() {
    EventFilter<? super R> f = filter;
    List<Watches.Source<?>> all = new ArrayList<>();
    all.add(new Watches.Source<>(type, sink -> f == null
        ? EnqueueHandler.<R>forObject(sink)
        : EnqueueHandler.<R>forObject(sink).withFilter(f)));
    all.addAll(sources);
    if (eventTracer != null) {
      all.replaceAll(this::traced);
    }
    return all;
  }

  private <X extends HasMetadata> Watches.Source<X> traced(Watches.Source<X> s) {
    EventTracer t = eventTracer;
    String annotation = traceparentAnnotation;
    return new Watches.Source<>(s.type(), sink -> s.handler().apply(sink).withTracer(t, annotation));
  }

  /** {@code d}, unless it is null, zero or negative ({@code Checks} is not exported here). */
  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name + " must not be null");
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }
}
