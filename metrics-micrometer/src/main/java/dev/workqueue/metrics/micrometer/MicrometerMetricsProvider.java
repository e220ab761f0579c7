package dev.workqueue.metrics.micrometer;

import dev.workqueue.internal.Checks;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.scheduling.SchedulingMetricsProvider;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The toolkit's metrics on a Micrometer {@link MeterRegistry}: the seven work queue metrics
 * ({@link MetricsProvider}), the controller-runtime ones ({@link ControllerMetricsProvider}) and
 * the scheduling queue ones ({@link SchedulingMetricsProvider}), from one object. client-go's
 * counterpart is the Prometheus provider that {@code k8s.io/component-base} (or
 * controller-runtime's {@code pkg/metrics}) installs with {@code workqueue.SetProvider}.
 *
 * <pre>{@code
 * MicrometerMetricsProvider metrics = MicrometerMetricsProvider.create(meterRegistry);
 * Controller<String> c = Controller.<String>builder("configmaps")
 *     .queueMetricsProvider(metrics)    // workqueue_* {name="configmaps"}
 *     .metricsProvider(metrics)         // controller_runtime_* {controller="configmaps"}
 *     .reconciler(...)
 *     .build();
 * }</pre>
 *
 * <h2>Names</h2>
 * Meters get Micrometer's dot-separated names without unit suffix ({@code workqueue.adds},
 * {@code workqueue.queue.duration}); counters, timers and gauges in seconds carry the types and
 * base units from which Micrometer's Prometheus naming convention derives exactly the names
 * that Go controllers export (the constants of the three SPIs):
 * <table>
 *   <caption>Meters and their Prometheus names</caption>
 *   <tr><th>Prometheus name</th><th>Micrometer meter</th><th>tags</th></tr>
 *   <tr><td>{@code workqueue_depth}</td><td>gauge {@code workqueue.depth}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_adds_total}</td><td>counter {@code workqueue.adds}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_queue_duration_seconds}</td><td>timer {@code workqueue.queue.duration}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_work_duration_seconds}</td><td>timer {@code workqueue.work.duration}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_unfinished_work_seconds}</td><td>gauge {@code workqueue.unfinished.work} (seconds)</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_longest_running_processor_seconds}</td><td>gauge {@code workqueue.longest.running.processor} (seconds)</td><td>{@code name}</td></tr>
 *   <tr><td>{@code workqueue_retries_total}</td><td>counter {@code workqueue.retries}</td><td>{@code name}</td></tr>
 *   <tr><td>{@code controller_runtime_reconcile_total}</td><td>counter {@code controller.runtime.reconcile}</td><td>{@code controller}, {@code result}</td></tr>
 *   <tr><td>{@code controller_runtime_reconcile_errors_total}</td><td>counter</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code controller_runtime_terminal_reconcile_errors_total}</td><td>counter</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code controller_runtime_reconcile_panics_total}</td><td>counter</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code controller_runtime_reconcile_time_seconds}</td><td>timer</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code controller_runtime_active_workers}</td><td>gauge</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code controller_runtime_max_concurrent_reconciles}</td><td>gauge</td><td>{@code controller}</td></tr>
 *   <tr><td>{@code scheduler_pending_items}</td><td>gauge</td><td>{@code name}, {@code queue}</td></tr>
 *   <tr><td>{@code scheduler_queue_incoming_items_total}</td><td>counter</td><td>{@code name}, {@code queue}, {@code event}</td></tr>
 *   <tr><td>{@code scheduler_unschedulable_items}</td><td>gauge</td><td>{@code name}, {@code rejector}</td></tr>
 *   <tr><td>{@code scheduler_in_flight_events}</td><td>gauge</td><td>{@code name}</td></tr>
 * </table>
 * The scheduling queue's names are kube-scheduler's with "pods" read as "items"
 * ({@code scheduler_pending_pods} → {@code scheduler_pending_items}). A Prometheus registry
 * also publishes a {@code _max} gauge beside each timer (Micrometer's own); other registries
 * apply their own naming conventions to the dotted names.
 *
 * <h2>Histogram buckets</h2>
 * Timers publish fixed buckets (Micrometer service-level objectives), no percentiles:
 * <ul>
 *   <li>the two queue timers: 10<sup>-8</sup> s to 10<sup>3</sup> s, one per power of ten
 *       (twelve buckets, controller-runtime's {@code ExponentialBuckets(10e-9, 10, 12)}). The
 *       bounds of both Kubernetes variants are among them: {@code k8s.io/component-base}
 *       had 10<sup>-8</sup> to 10 s and now has 10<sup>-6</sup> to 10<sup>3</sup> s;</li>
 *   <li>{@code controller_runtime_reconcile_time_seconds}: controller-runtime's 40 bounds, 5 ms
 *       to 60 s.</li>
 * </ul>
 * The Java Prometheus client writes a bound as {@code le="1.0E-8"} where Go writes
 * {@code le="1e-08"}; {@code histogram_quantile} reads both, and Prometheus 3 normalises
 * {@code le} on ingestion, but a Prometheus 2 query that names a bound as text must use the
 * Java spelling. A {@code MeterFilter} on the registry can change the distribution settings.
 *
 * <h2>Lifecycle</h2>
 * Gauges read a small value cell that the queue sets; neither the registry nor this provider
 * ever references a queue or a controller, so a discarded queue is collectable at once. Its
 * meters, like a Go queue's series, stay registered (keeping their last values) until
 * {@link #remove(String)} drops them: call it after the queue, controller or scheduling queue
 * of that name has shut down. A later queue of the same name then starts from fresh meters.
 * Queues sharing a name share their meters (the gauges show the last value set). Use one
 * provider per registry: a second provider's gauges of the same name and tags would not be
 * the registered ones.
 *
 * <p>Thread-safe. The metrics it returns never block: counters and gauges are single atomic
 * writes, timers Micrometer's lock-free recording.
 */
public final class MicrometerMetricsProvider
    implements MetricsProvider, ControllerMetricsProvider, SchedulingMetricsProvider {

  /** Prefix of the scheduling queue metrics' Prometheus names, as kube-scheduler's. */
  public static final String SCHEDULER_PREFIX = "scheduler_";

  /** Tag of the work queue and scheduling queue metrics: the queue's name. */
  public static final String NAME_TAG = "name";
  /** Tag of the controller metrics: the controller's name. */
  public static final String CONTROLLER_TAG = "controller";

  private static final List<Duration> QUEUE_BUCKETS = powersOfTen(-8, 3);
  private static final List<Duration> RECONCILE_BUCKETS = millis(
      5, 10, 25, 50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800, 900, 1000,
      1250, 1500, 1750, 2000, 2500, 3000, 3500, 4000, 4500, 5000, 6000, 7000, 8000, 9000,
      10_000, 15_000, 20_000, 25_000, 30_000, 40_000, 50_000, 60_000);

  private final MeterRegistry registry;
  /** Every meter this provider registered, by owner (queue or controller name), metric and tags. */
  private final ConcurrentMap<Key, Registered> meters = new ConcurrentHashMap<>();
  /**
   * Held while a meter is registered or removed, so that {@link #remove} takes a meter out of
   * the registry and out of {@link #meters} in one step: a queue or controller made under the
   * name meanwhile registers a new meter after it, and never gets the old one as it leaves the
   * registry. Registration happens when a queue is built, or the first time a series of it
   * is used (a scheduling queue's event or rejector label), not per item; a {@code remove}
   * holds it for as long as the registry's removals of that name take.
   */
  private final Object registration = new Object();

  private record Key(String owner, String metric, Tags tags) {}

  /** A registered meter and, for a gauge, the cell it reads. */
  private record Registered(Meter meter, ValueCell cell) {}

  /** What a gauge reads: the last value the toolkit set. */
  private static final class ValueCell {
    private volatile double value;

    double get() {
      return value;
    }

    void set(double v) {
      value = v;
    }
  }

  private MicrometerMetricsProvider(MeterRegistry registry) {
    this.registry = registry;
  }

  /**
   * A provider registering its meters in {@code registry}.
   *
   * @param registry where the meters are registered, as queues and controllers ask for them;
   *     use one provider per registry
   * @return a new provider that has registered no meter yet
   * @throws NullPointerException if {@code registry} is null
   */
  public static MicrometerMetricsProvider create(MeterRegistry registry) {
    return new MicrometerMetricsProvider(Checks.nonNull(registry, "registry"));
  }

  /**
   * Removes from the registry every meter this provider created for the work queue,
   * controller or scheduling queue called {@code name}, and forgets them. Call it once the
   * queue or controller has shut down; metrics it still holds keep working but are no
   * longer published. Idempotent.
   *
   * @param name the name the queue or controller gave its metrics (the {@code name} or
   *     {@code controller} tag)
   * @return how many meters were removed
   * @throws NullPointerException if {@code name} is null
   */
  public int remove(String name) {
    Checks.nonNull(name, "name");
    int removed = 0;
    synchronized (registration) {
      for (var it = meters.entrySet().iterator(); it.hasNext(); ) {
        var e = it.next();
        if (e.getKey().owner().equals(name)) {
          registry.remove(e.getValue().meter());
          it.remove();
          removed++;
        }
      }
    }
    return removed;
  }

  // ---- work queue (client-go) ----

  @Override
  public Gauge newDepthMetric(String name) {
    return gauge(name, DEPTH, "Current depth of the work queue: items waiting to be processed",
        tags(NAME_TAG, name));
  }

  @Override
  public Counter newAddsMetric(String name) {
    return counter(name, ADDS, "Adds handled by the work queue", tags(NAME_TAG, name));
  }

  @Override
  public Histogram newLatencyMetric(String name) {
    return timer(name, QUEUE_DURATION,
        "How long in seconds an item stays in the work queue before being requested",
        tags(NAME_TAG, name), QUEUE_BUCKETS);
  }

  @Override
  public Histogram newWorkDurationMetric(String name) {
    return timer(name, WORK_DURATION, "How long in seconds processing an item takes",
        tags(NAME_TAG, name), QUEUE_BUCKETS);
  }

  @Override
  public Gauge newUnfinishedWorkSecondsMetric(String name) {
    return gauge(name, UNFINISHED_WORK,
        "Seconds of work in progress not yet observed by work_duration; large values mean"
            + " stuck workers", tags(NAME_TAG, name));
  }

  @Override
  public Gauge newLongestRunningProcessorSecondsMetric(String name) {
    return gauge(name, LONGEST_RUNNING,
        "How many seconds the longest running item of the work queue has been processing",
        tags(NAME_TAG, name));
  }

  @Override
  public Counter newRetriesMetric(String name) {
    return counter(name, RETRIES, "Retries (delayed adds) handled by the work queue",
        tags(NAME_TAG, name));
  }

  // ---- controller (controller-runtime) ----

  @Override
  public Counter newReconcileTotal(String controller, String result) {
    Checks.nonNull(result, "result");
    return counter(controller, RECONCILE_TOTAL, "Reconciliations per controller and result",
        tags(CONTROLLER_TAG, controller, "result", result));
  }

  @Override
  public Counter newReconcileErrors(String controller) {
    return counter(controller, RECONCILE_ERRORS, "Reconciliation errors per controller",
        tags(CONTROLLER_TAG, controller));
  }

  @Override
  public Counter newTerminalReconcileErrors(String controller) {
    return counter(controller, TERMINAL_RECONCILE_ERRORS,
        "Terminal reconciliation errors per controller", tags(CONTROLLER_TAG, controller));
  }

  @Override
  public Counter newReconcilePanics(String controller) {
    return counter(controller, RECONCILE_PANICS,
        "Reconciliation panics (Errors thrown by the reconciler) per controller",
        tags(CONTROLLER_TAG, controller));
  }

  @Override
  public Histogram newReconcileTime(String controller) {
    return timer(controller, RECONCILE_TIME, "Length of time per reconciliation per controller",
        tags(CONTROLLER_TAG, controller), RECONCILE_BUCKETS);
  }

  @Override
  public Gauge newActiveWorkers(String controller) {
    return gauge(controller, ACTIVE_WORKERS, "Workers reconciling now, per controller",
        tags(CONTROLLER_TAG, controller));
  }

  @Override
  public Gauge newMaxConcurrentReconciles(String controller) {
    return gauge(controller, MAX_CONCURRENT_RECONCILES,
        "Maximum number of concurrent reconciles per controller",
        tags(CONTROLLER_TAG, controller));
  }

  @Override
  public Gauge newLeaderElectionMasterStatus(String lease) {
    Checks.nonNull(lease, "lease");
    return gauge(lease, LEADER_ELECTION_MASTER_STATUS,
        "Whether this replica is the master of the lease: 1 master, 0 backup",
        tags(NAME_TAG, lease));
  }

  @Override
  public Gauge newShardMembers(String ring) {
    Checks.nonNull(ring, "ring");
    return gauge(ring, SHARD_MEMBERS, "Members of the shard ring this replica splits keys among",
        tags("ring", ring));
  }

  @Override
  public Gauge newShardKeysOwned(String ring) {
    Checks.nonNull(ring, "ring");
    return gauge(ring, SHARD_KEYS_OWNED, "Cached objects whose keys the ring gives this replica",
        tags("ring", ring));
  }

  @Override
  public Counter newShardHandOvers(String ring) {
    Checks.nonNull(ring, "ring");
    return counter(ring, SHARD_HANDOVERS, "Keys this replica gained from changes of the ring",
        tags("ring", ring));
  }

  @Override
  public Histogram newShardHandOverTime(String ring) {
    Checks.nonNull(ring, "ring");
    return timer(ring, SHARD_HANDOVER_TIME,
        "From the change of the ring that gave this replica a key to its first reconcile",
        tags("ring", ring), RECONCILE_BUCKETS);
  }

  // ---- scheduling queue (kube-scheduler) ----

  @Override
  public Gauge newPendingItemsMetric(String name, String queueLabel) {
    Checks.nonNull(queueLabel, "queueLabel");
    return gauge(name, SCHEDULER_PREFIX + PENDING_ITEMS,
        "Pending items by queue: active, backoff, unschedulable, gated",
        tags(NAME_TAG, name, "queue", queueLabel));
  }

  @Override
  public Counter newIncomingItemsMetric(String name, String queueLabel, String event) {
    Checks.nonNull(queueLabel, "queueLabel");
    Checks.nonNull(event, "event");
    return counter(name, SCHEDULER_PREFIX + INCOMING_ITEMS,
        "Items added to the scheduling queues, by queue and by the event that moved them",
        tags(NAME_TAG, name, "queue", queueLabel, "event", event));
  }

  @Override
  public Gauge newUnschedulableItemsMetric(String name, String rejector) {
    Checks.nonNull(rejector, "rejector");
    return gauge(name, SCHEDULER_PREFIX + UNSCHEDULABLE_ITEMS,
        "Unschedulable items by the rejector that rejected them",
        tags(NAME_TAG, name, "rejector", rejector));
  }

  @Override
  public Gauge newInFlightEventsMetric(String name) {
    return gauge(name, SCHEDULER_PREFIX + IN_FLIGHT_EVENTS,
        "Events logged while scheduling attempts are in flight", tags(NAME_TAG, name));
  }

  // ---- registration ----

  private Counter counter(String owner, String metric, String help, Tags tags) {
    io.micrometer.core.instrument.Counter c = (io.micrometer.core.instrument.Counter)
        register(owner, metric, tags, () -> new Registered(
            io.micrometer.core.instrument.Counter.builder(meterName(metric))
                .description(help).tags(tags).register(registry), null)).meter();
    return c::increment;
  }

  private Gauge gauge(String owner, String metric, String help, Tags tags) {
    ValueCell cell = register(owner, metric, tags, () -> {
      ValueCell fresh = new ValueCell();
      return new Registered(
          io.micrometer.core.instrument.Gauge.builder(meterName(metric), fresh, ValueCell::get)
              .description(help).baseUnit(baseUnit(metric)).tags(tags).strongReference(true)
              .register(registry), fresh);
    }).cell();
    return cell::set;
  }

  private Histogram timer(String owner, String metric, String help, Tags tags,
      List<Duration> buckets) {
    Timer t = (Timer) register(owner, metric, tags, () -> new Registered(
        Timer.builder(meterName(metric)).description(help).tags(tags)
            .serviceLevelObjectives(buckets.toArray(new Duration[0]))
            .register(registry), null)).meter();
    return seconds -> t.record(toNanos(seconds), TimeUnit.NANOSECONDS);
  }

  /** The meter registered under this key, registering it first if this is the first call. */
  private Registered register(String owner, String metric, Tags tags, Supplier<Registered> create) {
    synchronized (registration) {
      return meters.computeIfAbsent(new Key(owner, metric, tags), k -> create.get());
    }
  }

  /** Tags {@code ownerTag=owner} plus the given key-value pairs; {@code owner} must be non-null. */
  private static Tags tags(String ownerTag, String owner, String... keyValues) {
    Objects.requireNonNull(owner, ownerTag);
    return Tags.of(ownerTag, owner).and(keyValues);
  }

  /**
   * Micrometer's name for a Prometheus-style name: underscores become dots, and the suffix
   * that the Prometheus naming convention adds back ({@code _total} for counters,
   * {@code _seconds} for timers and gauges in seconds) is dropped.
   */
  static String meterName(String prometheusName) {
    String base = prometheusName;
    for (String suffix : List.of("_total", "_seconds")) {
      if (base.endsWith(suffix)) {
        base = base.substring(0, base.length() - suffix.length());
      }
    }
    return base.replace('_', '.');
  }

  private static String baseUnit(String prometheusName) {
    return prometheusName.endsWith("_seconds") ? "seconds" : null;
  }

  /** Seconds as whole nanoseconds, saturating; NaN counts as 0 (Micrometer drops negatives). */
  static long toNanos(double seconds) {
    return Math.round(seconds * 1e9);
  }

  private static List<Duration> powersOfTen(int fromExponent, int toExponent) {
    List<Duration> bounds = new ArrayList<>();
    long nanos = 1;
    for (int e = -9; e <= toExponent; e++, nanos *= 10) {
      if (e >= fromExponent) {
        bounds.add(Duration.ofNanos(nanos));
      }
    }
    return List.copyOf(bounds);
  }

  private static List<Duration> millis(long... ms) {
    List<Duration> bounds = new ArrayList<>();
    for (long m : ms) {
      bounds.add(Duration.ofMillis(m));
    }
    return List.copyOf(bounds);
  }
}
