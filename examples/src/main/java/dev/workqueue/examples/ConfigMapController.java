package dev.workqueue.examples;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.EventFilter;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.LeaderElection;
import dev.workqueue.kubernetes.ManagementServer;
import dev.workqueue.kubernetes.OwnerReferences;
import dev.workqueue.kubernetes.Request;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testing.RecordingMetricsProvider;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Kubernetes controller on the {@code kubernetes-fabric8} module, run as two replicas with
 * leader election: for every ConfigMap of a namespace it keeps a derived ConfigMap {@code
 * <name>-derived} (the source's keys and a SHA-256 of its data), owned by the source through a
 * controller owner reference, so a derived object someone edits or deletes is put back
 * ({@code owns}). One replica holds the Lease and reconciles; the other keeps its cache warm.
 * Half-way the leader stops, as in a rolling update: it releases the Lease, the other replica
 * takes over and reconciles what changes next.
 *
 * <p>The first reconcile of each name given by {@code --fail} throws: the controller's own
 * back-off (printed by the limiter it uses, not by the reconciler) retries it 5 ms later, then
 * 10 ms, doubling.
 *
 * <p>The API server is fabric8's {@code kubernetes-server-mock} in CRUD mode, started by the
 * example on the loopback address ({@link EmbeddedApiServer}): nothing to install. It collects
 * no garbage, so the reconciler deletes the derived object of a deleted source itself.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.ConfigMapController -Dexec.args="--objects 4 --fail app-2"
 * </pre>
 */
public final class ConfigMapController implements AutoCloseable {
  /** The namespace the example works in. */
  public static final String NAMESPACE = "demo";
  /** Appended to the source's name to name the derived ConfigMap. */
  public static final String SUFFIX = "-derived";
  static final String NAME = "configmaps";

  /** The settings; {@link #parse} reads them from the command line. */
  public record Options(int objects, Set<String> failFirstAttempt, int workers,
      int healthPort) {
    static final String USAGE = "usage: ConfigMapController [--objects N] [--fail NAME,NAME...]"
        + " [--workers N] [--health-port N]";
    static final String HELP = String.join("\n",
        "  --objects N             source ConfigMaps to create (default 4)",
        "  --fail NAME,NAME...     sources whose first reconcile fails, to show a retry"
            + " (default app-2)",
        "  --workers N             reconcile workers per replica (default 2)",
        "  --health-port N         serve replica i's health endpoints on port N + i"
            + " (0: free ports; default none)");

    /** @throws IllegalArgumentException if {@code objects} or {@code workers} is below 1 */
    public Options {
      if (objects < 1) {
        throw new IllegalArgumentException("objects must be at least 1, was " + objects);
      }
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1, was " + workers);
      }
      if (healthPort < -1 || healthPort > 65534) {
        throw new IllegalArgumentException(
            "healthPort must be -1 (off) or within [0, 65534], was " + healthPort);
      }
      failFirstAttempt = Set.copyOf(failFirstAttempt);
    }

    /**
     * Parses the command line; defaults: 4 objects, {@code --fail app-2}, 2 workers, no health
     * endpoints ({@code --health-port N} serves replica i's on port N + i, 0 free ports).
     */
    public static Options parse(String... args) {
      Flags f = Flags.parse(USAGE, HELP,
          Set.of("--objects", "--fail", "--workers", "--health-port"), Set.of(), args);
      Set<String> fail = new java.util.TreeSet<>();
      for (String name : f.string("--fail", "app-2").split(",")) {
        if (!name.isBlank()) {
          fail.add(name.trim());
        }
      }
      return new Options(f.intAtLeast("--objects", 1, 4), fail, f.intAtLeast("--workers", 1, 2),
          f.intAtLeast("--health-port", 0, -1));
    }
  }

  /** A replica: its own client and controller, and the metrics of its controller. */
  public record Replica(String name, KubernetesClient client,
      KubernetesController<ConfigMap> controller, RecordingMetricsProvider metrics) {}

  private final PrintStream out;
  private final Options options;
  private final EmbeddedApiServer server;
  private final KubernetesClient admin;
  private final List<Replica> replicas = new ArrayList<>();
  private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
  private final Map<String, ManagementServer> probes = new ConcurrentHashMap<>();

  private ConfigMapController(Options options, PrintStream out, EmbeddedApiServer server) {
    this.options = options;
    this.out = out;
    this.server = server;
    this.admin = server.admin();
  }

  /** Starts the API server and two replicas, and returns once one of them leads. */
  public static ConfigMapController start(Options options, PrintStream out)
      throws InterruptedException, java.io.IOException {
    return start(options, out, new EmbeddedApiServer());
  }

  /**
   * As {@link #start(Options, PrintStream)}, with the replicas' every request to the API server
   * passed to {@code replicaRequests}: {@code RbacManifestTest} checks them against {@code
   * examples/deploy/rbac.yaml}.
   */
  static ConfigMapController start(Options options, PrintStream out,
      io.fabric8.kubernetes.client.http.Interceptor replicaRequests)
      throws InterruptedException, java.io.IOException {
    return start(options, out, new EmbeddedApiServer(replicaRequests));
  }

  static ConfigMapController start(Options options, PrintStream out, // a test's server too
      EmbeddedApiServer server) throws InterruptedException, java.io.IOException {
    ConfigMapController c = new ConfigMapController(options, out, server);
    try {
      out.printf("API server (fabric8 kubernetes-server-mock, CRUD mode) at %s%n",
          c.admin.getMasterUrl());
      for (String name : List.of("replica-a", "replica-b")) {
        Replica r = c.replica(name);
        c.replicas.add(r);
        r.controller().start();
        out.printf("[%s] caches synced; contending for Lease %s/%s%n", name, NAMESPACE, NAME);
        if (options.healthPort() >= 0) {
          int port = options.healthPort() == 0 ? 0 : options.healthPort() + c.replicas.size() - 1;
          c.probes.put(name, probes(r, port));
          out.printf("[%s] probes at %s and /readyz%n", name, c.probeUri(name, "/healthz"));
        }
      }
      c.awaitLeader(Duration.ofSeconds(30));
      return c;
    } catch (RuntimeException | InterruptedException | java.io.IOException e) {
      c.close();
      throw e;
    }
  }

  /** One replica: this is all the wiring a controller needs. */
  private Replica replica(String name) {
    KubernetesClient client = server.newClient();
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    KubernetesController<ConfigMap> controller =
        KubernetesController.builder(client, ConfigMap.class)
            .name(NAME)
            .inNamespace(NAMESPACE)
            .withEventFilter(EventFilter.matching(cm -> !isDerived(cm))) // sources only
            .owns(ConfigMap.class) // a derived object's change enqueues its source
            .reconciler(request -> reconcile(name, client, request))
            .leaderElection(LeaderElection.lease(NAMESPACE, NAME).withIdentity(name)
                .withDurations(Duration.ofSeconds(4), Duration.ofSeconds(3),
                    Duration.ofMillis(500))
                .withNewLeaderListener(id -> out.printf("[%s] the Lease is held by %s%n", name,
                    id)))
            .controller(c -> c.workers(options.workers())
                .rateLimiter(showingBackOff(name, RateLimiters.defaultControllerRateLimiter()))
                .metricsProvider(metrics).queueMetricsProvider(metrics))
            .build();
    return new Replica(name, client, controller, metrics);
  }

  /**
   * A replica's liveness and readiness probes, as a pod's would be, on loopback: {@code
   * /healthz} answers 200 while the controller is live, {@code /readyz} 200 once it is ready
   * (the caches synced, every watch open); 503 otherwise, with what is not.
   */
  private static ManagementServer probes(Replica r, int port) throws java.io.IOException {
    return ManagementServer.builder().health(NAME, r.controller()::health)
        .bindAddress(java.net.InetAddress.getLoopbackAddress()).port(port).start();
  }

  /** Where a replica's probe {@code path} is served, if probes were asked for. */
  java.net.URI probeUri(String replica, String path) {
    return java.net.URI.create("http://127.0.0.1:" + probes.get(replica).port() + path);
  }

  /** The controller's limiter, printing each back-off it decides. */
  private RateLimiter<Object> showingBackOff(String replica, RateLimiter<Object> limiter) {
    return new RateLimiter<>() {
      @Override
      public Duration when(Object key) {
        Duration d = limiter.when(key);
        out.printf("[%s] controller: %s failed; requeued with back-off %d ms (attempt %d)%n",
            replica, key, d.toMillis(), limiter.numRequeues(key));
        return d;
      }

      @Override
      public void forget(Object key) {
        limiter.forget(key);
      }

      @Override
      public int numRequeues(Object key) {
        return limiter.numRequeues(key);
      }
    };
  }

  public static void main(String[] args) throws Exception {
    Options options = Flags.orExit(() -> Options.parse(args));
    PrintStream out = System.out;
    try (ConfigMapController example = start(options, out)) {
      out.printf("%n== create %d ConfigMaps%n", options.objects());
      for (int i = 1; i <= options.objects(); i++) {
        example.admin.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("app-" + i).endMetadata()
            .addToData("greeting", "hello " + i).build()).create();
      }
      example.awaitConverged(Duration.ofSeconds(30));

      out.printf("%n== update app-1%n");
      example.edit("app-1", "colour", "blue");
      example.awaitConverged(Duration.ofSeconds(30));

      Replica leader = example.leader().orElseThrow();
      out.printf("%n== %s stops (a rolling update): it releases the Lease%n", leader.name());
      leader.controller().stop(Duration.ofSeconds(10));
      Replica next = example.awaitLeader(Duration.ofSeconds(30));
      out.printf("[%s] leads now%n", next.name());

      out.printf("%n== update app-1 again, and delete app-%d%n", options.objects());
      example.edit("app-1", "colour", "green");
      if (options.objects() > 1) {
        example.admin.configMaps().inNamespace(NAMESPACE).withName("app-" + options.objects())
            .delete();
      }
      example.awaitConverged(Duration.ofSeconds(30));

      out.printf("%n== derived ConfigMaps on the API server%n");
      example.derived().forEach((name, data) -> out.printf("%-14s %s%n", name, data));
      out.printf("%n== reconciles per replica%n");
      for (Replica r : example.replicas) {
        out.printf("%-10s success %d, error %d%n", r.name(),
            r.metrics().count(NAME, "controller_runtime_reconcile_total{result=success}"),
            r.metrics().count(NAME, "controller_runtime_reconcile_total{result=error}"));
      }
    }
    out.println("stopped: both replicas (workers joined, Lease released), API server");
  }

  /** The reconciler: make {@code <name>-derived} match the source, or delete it. */
  private Result reconcile(String replica, KubernetesClient client, Request<ConfigMap> request) {
    String name = request.key().name();
    if (options.failFirstAttempt().contains(name) && failedOnce.add(name)) {
      out.printf("[%s] reconcile %-12s fails (injected)%n", replica, request.key());
      throw new IllegalStateException("injected failure for " + request.key());
    }
    String derivedName = name + SUFFIX;
    if (request.object().isEmpty()) {
      // A cluster's garbage collector would delete the owned object; the mock server has none.
      client.configMaps().inNamespace(NAMESPACE).withName(derivedName).delete();
      out.printf("[%s] reconcile %-12s source gone: deleted %s%n", replica, request.key(),
          derivedName);
      return Result.success();
    }
    ConfigMap source = request.object().get();
    Map<String, String> want = derive(source);
    ConfigMap current = client.configMaps().inNamespace(NAMESPACE).withName(derivedName).get();
    if (current != null && want.equals(data(current))) {
      out.printf("[%s] reconcile %-12s %s up to date%n", replica, request.key(), derivedName);
      return Result.success();
    }
    client.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
        .withNewMetadata().withNamespace(NAMESPACE).withName(derivedName)
        .withOwnerReferences(OwnerReferences.controllerOf(source)).endMetadata()
        .withData(want).build())
        .createOr(NonDeletingOperation::update);
    out.printf("[%s] reconcile %-12s wrote %s %s%n", replica, request.key(), derivedName, want);
    return Result.success();
  }

  /** The data a derived ConfigMap holds for {@code source}: its name, keys and data hash. */
  static Map<String, String> derive(ConfigMap source) {
    Map<String, String> data = new TreeMap<>(data(source));
    MessageDigest sha;
    try {
      sha = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
    data.forEach((k, v) -> sha.update((k + "=" + v + "\n").getBytes(StandardCharsets.UTF_8)));
    Map<String, String> derived = new TreeMap<>();
    derived.put("source", source.getMetadata().getName());
    derived.put("keys", String.join(",", data.keySet()));
    derived.put("sha256", HexFormat.of().formatHex(sha.digest()).substring(0, 16));
    return derived;
  }

  /** The client of the example's own changes (not a replica's). */
  public KubernetesClient admin() {
    return admin;
  }

  /** The two replicas, in start order. */
  public List<Replica> replicas() {
    return List.copyOf(replicas);
  }

  /** The replica that leads now, if any. */
  public java.util.Optional<Replica> leader() {
    return replicas.stream().filter(r -> r.controller().isLeading()).findFirst();
  }

  void edit(String name, String key, String value) {
    admin.configMaps().inNamespace(NAMESPACE).withName(name)
        .edit(cm -> new ConfigMapBuilder(cm).addToData(key, value).build());
  }

  /**
   * Whether the API server holds exactly the derived objects the sources call for. Reads the
   * server, not a cache.
   */
  public boolean converged() {
    Map<String, Map<String, String>> want = new TreeMap<>();
    for (ConfigMap cm : admin.configMaps().inNamespace(NAMESPACE).list().getItems()) {
      if (!isDerived(cm)) {
        want.put(cm.getMetadata().getName() + SUFFIX, derive(cm));
      }
    }
    return want.equals(derived());
  }

  /** The derived ConfigMaps on the API server: name to data. */
  public Map<String, Map<String, String>> derived() {
    Map<String, Map<String, String>> derived = new TreeMap<>();
    for (ConfigMap cm : admin.configMaps().inNamespace(NAMESPACE).list().getItems()) {
      if (isDerived(cm)) {
        derived.put(cm.getMetadata().getName(), new TreeMap<>(data(cm)));
      }
    }
    return derived;
  }

  private Replica awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (leader().isEmpty()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("no replica leads after " + timeout);
      }
      Thread.sleep(25);
    }
    return leader().get();
  }

  /**
   * For the command line: polls every 25 ms until the API server has converged and the leader
   * has been idle (nothing queued or waiting, no reconcile running) for two polls in a row, so
   * that the printout of one step is over before the next begins.
   */
  void awaitConverged(Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    int quietPolls = 0;
    while (quietPolls < 2) {
      if (System.nanoTime() - start > timeout.toNanos()) {
        throw new IllegalStateException("not converged within " + timeout);
      }
      Thread.sleep(25);
      boolean idle = leader().map(r -> {
        var s = r.controller().health().workers();
        return s.queued() == 0 && s.waiting() == 0 && s.busyWorkers() == 0;
      }).orElse(false);
      quietPolls = idle && converged() ? quietPolls + 1 : 0;
    }
    out.printf("-- converged in %d ms%n", (System.nanoTime() - start) / 1_000_000);
  }

  private static boolean isDerived(ConfigMap cm) {
    return cm.getMetadata().getName().endsWith(SUFFIX)
        && cm.getMetadata().getOwnerReferences() != null
        && !cm.getMetadata().getOwnerReferences().isEmpty();
  }

  private static Map<String, String> data(ConfigMap cm) {
    return cm.getData() == null ? Map.of() : cm.getData();
  }

  /** Stops both replicas (workers joined, Leases released), the clients and the server. */
  @Override
  public void close() {
    try { // an interrupt does not cut it short: each replica's close keeps it for the caller
      replicas.forEach(r -> r.controller().close());
    } finally {
      probes.values().forEach(ManagementServer::close);
      server.close(); // the replicas' clients and the admin's with it
    }
  }
}
