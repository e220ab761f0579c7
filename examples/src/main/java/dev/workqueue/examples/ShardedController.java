package dev.workqueue.examples;

import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.Request;
import dev.workqueue.kubernetes.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A sharded controller on the {@code kubernetes-fabric8} module: replicas in one JVM, each with
 * its own client and its own {@link KubernetesController} in the shard ring {@value #RING},
 * split the ConfigMaps of a namespace among them ({@link Sharding}). Each reconcile writes the
 * replica's name into the object's annotation {@value #ANNOTATION}, so the API server shows who
 * owns what. The program prints, as it happens, the ring each replica sees when it changes and
 * the first key of each hand-over, and after each step a table of the keys each replica owns:
 *
 * <ol>
 *   <li>replica-a, -b and -c start and split the keys;
 *   <li>replica-d joins: about a quarter of the keys move to it, and only to it;
 *   <li>replica-b stops (a rolling update): it ends its reconciles and deletes its Lease, so the
 *       others take its keys at once, without waiting for the Lease to expire;
 *   <li>replica-c is cut off from the API server: its renewals fail, it stops starting
 *       reconciles after the renew deadline, and the others take its keys once its Lease has
 *       not changed for the lease duration;
 *   <li>every object changes: each change reaches its owner alone, and no key moves.
 * </ol>
 *
 * <p>A checker sees every reconcile's start and end: no key is ever reconciled by two replicas
 * at once. The durations are short (lease 2 s, renew deadline 1.5 s, retry 250 ms) so that it
 * runs in seconds. The API server is {@link EmbeddedApiServer}: nothing to install.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.ShardedController -Dexec.args="--objects 48"
 * </pre>
 */
public final class ShardedController implements AutoCloseable {
  /** The namespace of the objects and of the ring's Leases. */
  public static final String NAMESPACE = "demo";
  /** The shard ring's name: each member's Lease is {@code configmaps.<replica>}. */
  public static final String RING = "configmaps";
  /** The annotation each reconcile writes: the name of the replica that reconciled it. */
  public static final String ANNOTATION = "example.workqueue.dev/reconciled-by";
  static final Duration LEASE = Duration.ofSeconds(2);
  static final Duration RENEW = Duration.ofMillis(1500);
  static final Duration RETRY = Duration.ofMillis(250);

  /** The settings; {@link #parse} reads them from the command line. */
  public record Options(int objects, int workers) {
    static final String USAGE = "usage: ShardedController [--objects N] [--workers N]";
    static final String HELP = String.join("\n",
        "  --objects N  ConfigMaps the replicas share (default 48)",
        "  --workers N  reconcile workers per replica (default 2)");

    /** @throws IllegalArgumentException if {@code objects} or {@code workers} is below 1 */
    public Options {
      if (objects < 1) {
        throw new IllegalArgumentException("objects must be at least 1, was " + objects);
      }
      if (workers < 1) {
        throw new IllegalArgumentException("workers must be at least 1, was " + workers);
      }
    }

    /** Parses the command line; defaults: 48 objects, 2 workers per replica. */
    public static Options parse(String... args) {
      Flags f = Flags.parse(USAGE, HELP, Set.of("--objects", "--workers"), Set.of(), args);
      return new Options(f.intAtLeast("--objects", 1, 48), f.intAtLeast("--workers", 1, 2));
    }
  }

  /**
   * What a step left, once it settled.
   *
   * @param title what happened
   * @param ring the members every running replica splits the keys among
   * @param keys replica to the number of objects that carry its name on the API server
   * @param moves "from -&gt; to" to the number of objects whose annotation changed so
   * @param leases the names of the ring's Leases on the API server
   * @param settled from the step's start until the ring agreed and every replica was idle
   */
  public record Step(String title, List<String> ring, Map<String, Integer> keys,
      Map<String, Integer> moves, Set<String> leases, Duration settled) {}

  private record Replica(String id, AtomicBoolean cutOff, KubernetesController<ConfigMap> c) {}

  private final Options options;
  private final PrintStream out;
  private final EmbeddedApiServer api = new EmbeddedApiServer();
  private final long startNanos = System.nanoTime();
  private final Map<String, Replica> replicas = new ConcurrentSkipListMap<>();
  private final Set<String> stopped = ConcurrentHashMap.newKeySet();
  /** Key to the replica reconciling it now: the shared checker. */
  private final Map<String, String> reconciling = new ConcurrentHashMap<>();
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, LongAdder> reconciles = new ConcurrentHashMap<>();
  /** Key to the value the example last wrote, and to the value a reconcile last saw. */
  private final Map<String, String> expected = new ConcurrentHashMap<>();
  private final Map<String, String> applied = new ConcurrentHashMap<>();
  /** The "from>to" pairs of this step whose first key was printed. */
  private final Set<String> handOvers = ConcurrentHashMap.newKeySet();
  private volatile boolean closing;

  private ShardedController(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /** Starts the API server and creates the objects; no replica runs yet. */
  public static ShardedController start(Options options, PrintStream out) {
    ShardedController example = new ShardedController(options, out);
    try {
      out.printf("API server (fabric8 kubernetes-server-mock, CRUD mode) at %s; %d ConfigMaps"
          + " in %s; lease %d s, renew deadline %d ms, retry %d ms%n",
          example.api.admin().getMasterUrl(), options.objects(), NAMESPACE, LEASE.toSeconds(),
          RENEW.toMillis(), RETRY.toMillis());
      for (int i = 0; i < options.objects(); i++) {
        String name = String.format("cm-%02d", i);
        example.api.admin().configMaps().inNamespace(NAMESPACE).resource(new ConfigMapBuilder()
            .withNewMetadata().withName(name).endMetadata().addToData("value", "v1").build())
            .create();
        example.expected.put(NAMESPACE + "/" + name, "v1");
      }
      return example;
    } catch (RuntimeException e) {
      example.close();
      throw e;
    }
  }

  public static void main(String[] args) throws Exception {
    Options options = Flags.orExit(() -> Options.parse(args));
    try (ShardedController example = start(options, System.out)) {
      example.run();
    }
    System.out.println("stopped: every replica (its Lease deleted), the API server");
  }

  /** The script: three replicas, a join, a graceful leave, a cut-off, a change of everything. */
  public List<Step> run() throws InterruptedException {
    List<Step> steps = new ArrayList<>();
    steps.add(step("replica-a, replica-b and replica-c start, one after another", () -> {
      for (String id : List.of("replica-a", "replica-b", "replica-c")) {
        startReplica(id);
      }
    }));
    steps.add(step("replica-d joins", () -> startReplica("replica-d")));
    steps.add(step("replica-b leaves gracefully (a rolling update)", () -> {
      say("[replica-b] stop(): ends its reconciles, then deletes its Lease");
      stopped.add("replica-b");
      replicas.get("replica-b").c().stop(Duration.ofSeconds(5));
      say("[replica-b] stopped");
    }));
    steps.add(step("replica-c is cut off from the API server", () -> {
      replicas.get("replica-c").cutOff().set(true);
      say("[replica-c] cut off: its renewals fail; it starts nothing after %d ms, the others"
          + " count it out after %d s", RENEW.toMillis(), LEASE.toSeconds());
    }));
    steps.add(step("every object changes", () -> {
      for (String key : expected.keySet()) {
        String name = key.substring(NAMESPACE.length() + 1);
        api.admin().configMaps().inNamespace(NAMESPACE).withName(name).edit(cm ->
            new ConfigMapBuilder(cm).withData(Map.of("value", "v2")).build());
        expected.put(key, "v2");
      }
    }));
    out.printf("%n== %d reconciles; %s%n", reconciles.values().stream()
        .mapToLong(LongAdder::sum).sum(), violations.isEmpty()
            ? "no key was reconciled by two replicas at once (checked at every start and end)"
            : violations.size() + " keys reconciled by two replicas at once: " + violations);
    return steps;
  }

  private interface Action {
    void run() throws InterruptedException;
  }

  private Step step(String title, Action action) throws InterruptedException {
    Map<String, String> before = annotations();
    handOvers.clear();
    out.printf("%n== %s%n", title);
    long start = System.nanoTime();
    action.run();
    awaitSettled(Duration.ofSeconds(30));
    Duration settled = Duration.ofNanos(System.nanoTime() - start);
    Map<String, String> after = annotations();
    Map<String, Integer> moves = new TreeMap<>();
    before.forEach((key, from) -> {
      String to = after.get(key);
      if (from != null && to != null && !from.equals(to)) {
        moves.merge(from + " -> " + to, 1, Integer::sum);
      }
    });
    Map<String, Integer> keys = new TreeMap<>();
    replicas.keySet().forEach(id -> keys.put(id, 0));
    after.values().forEach(id -> keys.merge(id, 1, Integer::sum));
    List<String> ring = running();
    out.printf("-- settled after %.2f s; %s%n", settled.toNanos() / 1e9, before.isEmpty()
        ? "every key has an owner" : moves.values().stream().mapToInt(Integer::intValue).sum()
            + " of " + expected.size() + " keys moved" + (moves.isEmpty() ? "" : ": "
            + String.join(", ", moves.entrySet().stream()
                .map(m -> m.getKey() + " " + m.getValue()).toList())));
    out.printf("   every running replica sees ring %s%n", ring);
    Set<String> leases = new TreeSet<>();
    for (Lease l : api.admin().leases().inNamespace(NAMESPACE)
        .withLabel("workqueue.dev/ring", RING).list().getItems()) {
      leases.add(l.getMetadata().getName());
    }
    printTable(keys, leases);
    return new Step(title, ring, keys, moves, leases, settled);
  }

  private void printTable(Map<String, Integer> keys, Set<String> leases) {
    out.printf("   %-10s %4s %10s  %-20s  %s%n", "replica", "keys", "reconciles", "Lease",
        "state");
    for (Replica r : replicas.values()) {
      String lease = RING + "." + r.id(); // the Lease of a ring member: <ring>.<identity>
      String state = stopped.contains(r.id()) ? "left"
          : r.cutOff().get() ? "cut off; still sees " + r.c().shardMembers() : "running";
      out.printf("   %-10s %4d %10d  %-20s  %s%n", r.id(), keys.get(r.id()),
          reconciles.get(r.id()).sum(), leases.contains(lease) ? lease : "-", state);
    }
  }

  private void startReplica(String id) throws InterruptedException {
    AtomicBoolean cutOff = new AtomicBoolean();
    KubernetesClient client = api.newClient(cutOff);
    reconciles.put(id, new LongAdder());
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("configmaps-" + id) // one JVM hosts every replica: a metrics name each
        .inNamespace(NAMESPACE)
        .sharding(Sharding.ring(NAMESPACE, RING, id).withDurations(LEASE, RENEW, RETRY)
            .withMembersListener(ring -> {
              if (!stopped.contains(id)) {
                say("[%s] sees ring %s", id, ring);
              }
            }))
        .controller(b -> b.workers(options.workers()))
        .reconciler(request -> reconcile(id, client, request))
        .build();
    replicas.put(id, new Replica(id, cutOff, c));
    c.start(); // returns once its caches are synced and its first round of the ring is done
    say("[%s] started: caches synced, Lease %s.%s written", id, RING, id);
  }

  /** Writes this replica's name into the object's annotation, under the shared checker. */
  private Result reconcile(String id, KubernetesClient client, Request<ConfigMap> request) {
    String key = request.key().toString();
    String other = reconciling.putIfAbsent(key, id);
    if (other != null) {
      violations.add(key + " by " + id + " while " + other);
      say("!! [%s] reconciles %s while %s does", id, key, other);
    }
    try {
      reconciles.get(id).increment();
      if (request.object().isEmpty()) {
        return Result.success();
      }
      ConfigMap cm = request.object().get();
      String previous = annotation(cm);
      if (!id.equals(previous)) {
        client.configMaps().inNamespace(NAMESPACE).withName(request.key().name()).edit(o ->
            new ConfigMapBuilder(o).editMetadata().addToAnnotations(ANNOTATION, id)
                .endMetadata().build());
        if (previous != null && handOvers.add(previous + ">" + id)) {
          say("[%s] took %s over from %s: the first of the keys moving from it", id, key,
              previous);
        }
      }
      applied.put(key, cm.getData().get("value"));
      return Result.success();
    } finally {
      reconciling.remove(key, id);
    }
  }

  /**
   * Polls every 100 ms until, three polls in a row, every running replica sees the ring of the
   * running replicas, has nothing queued, waiting or in a reconcile, every object's last value
   * was reconciled, and every object carries the name of a running replica.
   */
  private void awaitSettled(Duration timeout) throws InterruptedException {
    long start = System.nanoTime();
    String behind = "";
    for (int quiet = 0; quiet < 3; ) {
      if (System.nanoTime() - start > timeout.toNanos()) {
        throw new IllegalStateException("not settled within " + timeout + ": " + behind);
      }
      Thread.sleep(100);
      behind = unsettled();
      quiet = behind.isEmpty() ? quiet + 1 : 0;
    }
  }

  /** What keeps the step from being settled; empty once it is. */
  private String unsettled() {
    List<String> running = running();
    for (String id : running) {
      KubernetesController<ConfigMap> c = replicas.get(id).c();
      ControllerStatus s = c.health().workers();
      if (!c.shardMembers().equals(running) || s.queued() + s.waiting() + s.busyWorkers() > 0) {
        return id + " sees ring " + c.shardMembers() + ", " + s;
      }
    }
    if (!applied.equals(expected)) {
      return "a value not reconciled yet";
    }
    Map<String, String> owners = annotations();
    return owners.size() == expected.size() && running.containsAll(owners.values()) ? ""
        : "objects not annotated by " + running + ": " + owners;
  }

  /** The replicas that run and reach the API server, sorted. */
  private List<String> running() {
    return replicas.values().stream()
        .filter(r -> !stopped.contains(r.id()) && !r.cutOff().get()).map(Replica::id).toList();
  }

  /** Object key to the replica named in its annotation, as the API server has it. */
  private Map<String, String> annotations() {
    Map<String, String> owners = new TreeMap<>();
    for (ConfigMap cm : api.admin().configMaps().inNamespace(NAMESPACE).list().getItems()) {
      String by = annotation(cm);
      if (by != null) {
        owners.put(NAMESPACE + "/" + cm.getMetadata().getName(), by);
      }
    }
    return owners;
  }

  private static String annotation(ConfigMap cm) {
    Map<String, String> a = cm.getMetadata().getAnnotations();
    return a == null ? null : a.get(ANNOTATION);
  }

  private void say(String format, Object... args) {
    if (!closing) {
      out.printf("%6.2f s  %s%n", (System.nanoTime() - startNanos) / 1e9,
          String.format(format, args));
    }
  }

  /** Keys reconciled by two replicas at once, if any ("key by replica while other"). */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** The client of the example's own reads and changes (not a replica's). */
  public KubernetesClient admin() {
    return api.admin();
  }

  /**
   * Stops every replica still running (its Lease deleted; a cut-off replica's has expired
   * already), their clients and the API server.
   */
  @Override
  public void close() {
    closing = true;
    try {
      for (Replica r : replicas.values()) {
        if (stopped.add(r.id())) {
          r.c().stop(r.cutOff().get() ? Duration.ofMillis(300) : Duration.ofSeconds(5));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      api.close();
    }
  }
}
