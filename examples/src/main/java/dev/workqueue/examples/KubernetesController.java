package dev.workqueue.examples;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A controller fed by a real Kubernetes client: the fabric8 client's informer watches the
 * ConfigMaps of a namespace, every create, update and delete enqueues the key
 * {@code namespace/name} on the toolkit's {@link Controller}, and the reconciler writes back a
 * derived ConfigMap {@code <name>-derived} holding a summary of the source (its keys and a
 * SHA-256 of its data), or deletes it when the source is gone. Derived objects carry the label
 * {@value #DERIVED_FROM}; an event about one enqueues its source, so a derived object that
 * someone edits or deletes is put back (controller-runtime's {@code Owns}, by label instead of
 * an owner reference, since the embedded server does not collect garbage).
 *
 * <p>The first reconcile of the keys named by {@code --fail} throws: the controller retries
 * them with the per-key back-off ({@code addRateLimited}, 5 ms doubling).
 *
 * <p>The API server is fabric8's {@code kubernetes-server-mock} in CRUD mode, started by the
 * example on the loopback address (plain HTTP, a random port): nothing to install.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.KubernetesController -Dexec.args="--objects 4 --fail app-2"
 * </pre>
 *
 * <p>Build one with {@link #start}, change ConfigMaps through {@link #client()}, wait for
 * {@link #converged()}, and {@link #close()} it: that stops the controller (joining its
 * workers), the informer, the client and the server.
 */
public final class KubernetesController implements AutoCloseable {
  /** The namespace the example works in. */
  public static final String NAMESPACE = "demo";
  /** The label on a derived ConfigMap naming its source. */
  public static final String DERIVED_FROM = "workqueue.dev/derived-from";
  /** Appended to the source's name to name the derived ConfigMap. */
  public static final String SUFFIX = "-derived";
  static final String CONTROLLER_NAME = "configmaps";
  /** The mock server logs every request at INFO through java.util.logging; kept quiet. */
  private static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  /** The settings; {@link #parse} reads them from the command line. */
  public record Options(int objects, Set<String> failFirstAttempt, int workers) {
    static final String USAGE = "usage: KubernetesController [--objects N] [--fail NAME,NAME...]"
        + " [--workers N]";

    /** @throws IllegalArgumentException if {@code objects} or {@code workers} is below 1 */
    public Options {
      if (objects < 1) {
        throw new IllegalArgumentException("objects must be at least 1, was " + objects);
      }
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1, was " + workers);
      }
      failFirstAttempt = Set.copyOf(failFirstAttempt);
    }

    /** Parses the command line; defaults: 4 objects, {@code --fail app-2}, 2 workers. */
    public static Options parse(String... args) {
      Flags f = Flags.parse(USAGE, Set.of("--objects", "--fail", "--workers"), Set.of(), args);
      Set<String> fail = new java.util.TreeSet<>();
      for (String name : f.string("--fail", "app-2").split(",")) {
        if (!name.isBlank()) {
          fail.add(name.trim());
        }
      }
      return new Options(f.intAtLeast("--objects", 1, 4), fail, f.intAtLeast("--workers", 1, 2));
    }
  }

  private final PrintStream out;
  private final Options options;
  private final KubernetesMockServer server;
  private final KubernetesClient client;
  private final RecordingMetricsProvider metrics = new RecordingMetricsProvider();
  private final Controller<String> controller;
  private final SharedIndexInformer<ConfigMap> informer;
  private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();
  private final AtomicInteger writes = new AtomicInteger();
  private final AtomicInteger deletes = new AtomicInteger();

  private KubernetesController(Options options, PrintStream out) {
    MOCK_SERVER_LOG.setLevel(Level.WARNING);
    this.options = options;
    this.out = out;
    Map<ServerRequest, Queue<ServerResponse>> expectations = new HashMap<>();
    this.server = new KubernetesMockServer(new Context(),
        new MockWebServer(), expectations, new KubernetesMixedDispatcher(expectations), false);
    KubernetesClient c = null;
    Controller<String> built = null;
    SharedIndexInformer<ConfigMap> inf = null;
    try {
      server.init(InetAddress.getLoopbackAddress(), 0);
      c = server.createClient();
      built = Controller.<String>builder(CONTROLLER_NAME)
          .workers(options.workers())
          .queueMetricsProvider(metrics)
          .metricsProvider(metrics)
          .reconciler(this::reconcile)
          .build();
      built.start();
      this.client = c;
      this.controller = built;
      // Starts the watch and returns once the initial list is in the cache.
      inf = c.configMaps().inNamespace(NAMESPACE).inform(new Enqueue(), 0);
      this.informer = inf;
    } catch (RuntimeException e) {
      closeQuietly(inf, built, c);
      throw e;
    }
  }

  /** Starts the API server, the client, the controller and the informer. */
  public static KubernetesController start(Options options, PrintStream out) {
    out.println("API server (fabric8 kubernetes-server-mock, CRUD mode) starting on 127.0.0.1");
    KubernetesController c = new KubernetesController(options, out);
    out.printf("API server at %s; informer on ConfigMaps of namespace %s synced; controller %s"
        + " running with %d workers%n", c.client.getMasterUrl(), NAMESPACE, CONTROLLER_NAME,
        options.workers());
    return c;
  }

  public static void main(String[] args) throws Exception {
    Options options = Flags.orExit(() -> Options.parse(args));
    PrintStream out = System.out;
    try (KubernetesController example = start(options, out)) {
      KubernetesClient k = example.client();
      out.printf("%n== create %d ConfigMaps%n", options.objects());
      for (int i = 1; i <= options.objects(); i++) {
        k.configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("app-" + i).endMetadata()
            .addToData("greeting", "hello " + i).addToData("replicas", Integer.toString(i))
            .build()).create();
      }
      example.awaitConverged(Duration.ofSeconds(30));

      out.printf("%n== update app-1%n");
      k.configMaps().inNamespace(NAMESPACE).withName("app-1")
          .edit(cm -> new ConfigMapBuilder(cm).addToData("colour", "blue").build());
      example.awaitConverged(Duration.ofSeconds(30));

      if (options.objects() > 1) {
        out.printf("%n== delete app-%d%n", options.objects());
        k.configMaps().inNamespace(NAMESPACE).withName("app-" + options.objects()).delete();
        example.awaitConverged(Duration.ofSeconds(30));
      }

      out.printf("%n== derived ConfigMaps on the API server%n");
      example.derived().forEach((name, data) -> out.printf("%-14s %s%n", name, data));
      example.printMetrics();
    }
    out.println("stopped: controller (workers joined), informer, client, API server");
  }

  /** The client talking to the embedded API server. */
  KubernetesClient client() {
    return client;
  }

  /**
   * Whether the API server holds exactly the derived objects the sources call for: one
   * {@code <name>-derived} per source with {@link #derive} of its data, and none without a
   * source. Reads the server, not the informer's cache.
   */
  public boolean converged() {
    Map<String, Map<String, String>> want = new TreeMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NAMESPACE).list().getItems()) {
      if (!isDerived(cm)) {
        want.put(cm.getMetadata().getName() + SUFFIX, derive(cm));
      }
    }
    return want.equals(derived());
  }

  /** The derived ConfigMaps on the API server: name to data. */
  public Map<String, Map<String, String>> derived() {
    Map<String, Map<String, String>> derived = new TreeMap<>();
    for (ConfigMap cm : client.configMaps().inNamespace(NAMESPACE).list().getItems()) {
      if (isDerived(cm)) {
        derived.put(cm.getMetadata().getName(), new TreeMap<>(data(cm)));
      }
    }
    return derived;
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

  /** The controller's metrics so far. */
  public RecordingMetricsProvider metrics() {
    return metrics;
  }

  /**
   * For the command line: polls every 25 ms until the API server has {@link #converged()} and
   * the controller has been idle (nothing queued, no reconcile running) for two polls in a
   * row, so that the printout of one step is over before the next step begins.
   */
  void awaitConverged(Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    int quietPolls = 0;
    while (quietPolls < 2) {
      if (System.nanoTime() - start > timeout.toNanos()) {
        throw new IllegalStateException("not converged within " + timeout);
      }
      Thread.sleep(25);
      boolean idle = metrics.value(CONTROLLER_NAME, MetricsProvider.DEPTH) == 0
          && metrics.value(CONTROLLER_NAME, ControllerMetricsProvider.ACTIVE_WORKERS) == 0;
      quietPolls = idle && converged() ? quietPolls + 1 : 0;
    }
    out.printf("-- converged in %d ms%n", (System.nanoTime() - start) / 1_000_000);
  }

  /** The reconciler: make {@code <name>-derived} match the source, or delete it. */
  private Result reconcile(String key) {
    int slash = key.indexOf('/');
    String namespace = key.substring(0, slash);
    String name = key.substring(slash + 1);
    if (options.failFirstAttempt().contains(name) && failedOnce.add(key)) {
      out.printf("reconcile %-12s failed (injected) -> addRateLimited, retried after back-off%n", key);
      throw new IllegalStateException("injected failure for " + key);
    }
    // Read from the informer's cache, as a controller does: the key says what to look at,
    // the cache says what it is now.
    ConfigMap source = informer.getStore().getByKey(key);
    ConfigMap current = informer.getStore().getByKey(key + SUFFIX);
    String derivedName = name + SUFFIX;
    if (source == null) {
      if (current != null) {
        client.configMaps().inNamespace(namespace).withName(derivedName).delete();
        deletes.incrementAndGet();
        out.printf("reconcile %-12s source gone: deleted %s%n", key, derivedName);
      } else {
        out.printf("reconcile %-12s source gone, nothing derived: nothing to do%n", key);
      }
      return Result.success();
    }
    Map<String, String> want = derive(source);
    if (current != null && want.equals(data(current))) {
      out.printf("reconcile %-12s %s up to date%n", key, derivedName);
      return Result.success();
    }
    ConfigMap desired = new ConfigMapBuilder()
        .withNewMetadata().withNamespace(namespace).withName(derivedName)
        .addToLabels(DERIVED_FROM, name).endMetadata()
        .withData(new LinkedHashMap<>(want))
        .build();
    client.configMaps().inNamespace(namespace).resource(desired)
        .createOr(NonDeletingOperation::update);
    writes.incrementAndGet();
    out.printf("reconcile %-12s wrote %s %s%n", key, derivedName, want);
    return Result.success();
  }

  /** The informer's handler: every change to a ConfigMap enqueues its key, or its source's. */
  private final class Enqueue implements ResourceEventHandler<ConfigMap> {
    @Override
    public void onAdd(ConfigMap cm) {
      enqueue("ADDED", cm);
    }

    @Override
    public void onUpdate(ConfigMap oldCm, ConfigMap newCm) {
      if (!newCm.getMetadata().getResourceVersion().equals(oldCm.getMetadata().getResourceVersion())) {
        enqueue("MODIFIED", newCm);
      }
    }

    @Override
    public void onDelete(ConfigMap cm, boolean finalStateUnknown) {
      enqueue("DELETED", cm);
    }

    private void enqueue(String what, ConfigMap cm) {
      String namespace = cm.getMetadata().getNamespace();
      String name = cm.getMetadata().getName();
      String key = namespace + "/" + (isDerived(cm) ? cm.getMetadata().getLabels().get(DERIVED_FROM) : name);
      out.printf("informer  %-8s %-18s -> enqueue %s%n", what, namespace + "/" + name, key);
      controller.add(key);
    }
  }

  private void printMetrics() {
    out.printf("%n== controller metrics (%s)%n", CONTROLLER_NAME);
    out.printf("writes %d, deletes %d, injected failures %d%n", writes.get(), deletes.get(),
        failedOnce.size());
    for (String metric : List.of(ControllerMetricsProvider.RECONCILE_TOTAL + "{result=success}",
        ControllerMetricsProvider.RECONCILE_TOTAL + "{result=error}",
        ControllerMetricsProvider.RECONCILE_ERRORS, MetricsProvider.ADDS,
        MetricsProvider.RETRIES)) {
      out.printf("  %-55s %d%n", metric, metrics.count(CONTROLLER_NAME, metric));
    }
  }

  private static boolean isDerived(ConfigMap cm) {
    Map<String, String> labels = cm.getMetadata().getLabels();
    return labels != null && labels.containsKey(DERIVED_FROM);
  }

  private static Map<String, String> data(ConfigMap cm) {
    return cm.getData() == null ? Map.of() : cm.getData();
  }

  /**
   * Stops everything, in order: the controller (running reconciles finish, workers are
   * joined), then the informer, the client and the API server.
   */
  @Override
  public void close() {
    closeQuietly(informer, controller, client);
  }

  private void closeQuietly(SharedIndexInformer<ConfigMap> inf, Controller<String> c,
      KubernetesClient k) {
    try {
      if (c != null) {
        c.stop(Duration.ofSeconds(10));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // keep closing; the caller sees the flag
    } finally {
      if (inf != null) {
        inf.close();
      }
      if (k != null) {
        k.close();
      }
      server.destroy();
    }
  }
}
