package dev.workqueue.benchmarks;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueBuilder;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.EventFilter;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.LeaderElection;
import dev.workqueue.kubernetes.ObjectKey;
import dev.workqueue.ratelimit.RateLimiters;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.crud.Attribute;
import io.fabric8.mockwebserver.crud.AttributeExtractor;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Issue #35 item 5, timed: a replica gains the Lease over {@value #OBJECTS} ConfigMaps on
 * fabric8's mock API server (loopback) and replays its cache; at that moment (its first
 * reconcile) {@value #CHANGES} objects change. For each change: the time from its write to its
 * reconcile, and how many other keys were reconciled in between; with the replay at the default
 * low priority ({@code low}: -100 below the events' 0) and at the events' priority ({@code same}:
 * {@code priorities(0, 0)}, one first-come-first-served line, as before the fix). Also: the
 * keys reconciled twice, and the longest wait of a replayed key.
 *
 * <p>Then the aging bound: {@value #AGING_OBJECTS} objects replayed under a steady stream of
 * priority-0 adds faster than the one worker reconciles, with the priority queue's aging at
 * {@value #AGING_MILLIS} ms ({@code aged}) and off ({@code strict}, controller-runtime's order):
 * how many replayed keys are reconciled while the stream runs, and the longest wait, against the
 * documented bound (aging threshold + the time to reconcile the keys that were ready before).
 *
 * <p>A timed harness, not JMH: a run is one replay of many objects. Build and run (about two
 * minutes): {@code mvn -o -q -pl benchmarks -am package -DskipTests -Pquick && java -cp
 * benchmarks/target/benchmarks.jar dev.workqueue.benchmarks.ReplayPriorityHarness [runs]}.
 */
public final class ReplayPriorityHarness {
  static final int OBJECTS = 20_000;
  static final int CHANGES = 4;
  static final int WORKERS = 2;
  static final long WORK_NANOS = 500_000; // 0.5 ms: 20,000 in about 5 s, as in the issue
  static final int AGING_OBJECTS = 2_000;
  static final long AGING_MILLIS = 1_000;
  static final long AGING_WORK_NANOS = 1_000_000;
  static final long LOAD_NANOS = 6_000_000_000L;

  private final KubernetesCrudDispatcher store = new KubernetesCrudDispatcher(List.of());
  private final KubernetesMockServer server;
  private final KubernetesClient admin;

  private ReplayPriorityHarness() {
    Logger.getLogger("io.fabric8.mockwebserver").setLevel(Level.WARNING);
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        store, false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    admin = server.createClient();
  }

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    ReplayPriorityHarness h = new ReplayPriorityHarness();
    try {
      long t0 = System.nanoTime();
      h.create("replay", OBJECTS);
      h.create("aging", AGING_OBJECTS);
      System.out.printf("created %,d + %,d ConfigMaps in %.1f s%n", OBJECTS, AGING_OBJECTS,
          (System.nanoTime() - t0) / 1e9);
      System.out.println("| replay priority | run | each change: ms from its write / from its"
          + " event to its reconcile | replay keys not yet reconciled at its event | keys"
          + " reconciled between its event and its reconcile | worst, % of the replay | keys"
          + " reconciled twice | longest replayed wait (s) | all reconciled |");
      System.out.println("|---|---:|---|---|---|---:|---:|---:|---|");
      for (int run = 1; run <= runs; run++) {
        for (String mode : List.of("low", "same")) {
          System.out.println(h.replay(mode, run));
        }
      }
      System.out.println();
      System.out.println("| aging | replayed keys reconciled during the load | longest replayed"
          + " wait (s) | bound: threshold + replayed x mean reconcile (s) | within |");
      System.out.println("|---|---:|---:|---:|---|");
      for (String mode : List.of("aged", "strict")) {
        System.out.println(h.aging(mode));
      }
    } finally {
      h.admin.close();
      h.server.destroy();
    }
    System.exit(0);
  }

  /**
   * Creates {@code n} ConfigMaps in {@code namespace}: the first through the API, the others
   * copied from it straight into the mock server's store (its every request scans the store, so
   * 20,000 creates through the API take minutes), each with its own name, uid and
   * resourceVersion, keyed as the server keys the first.
   */
  private void create(String namespace, int n) throws Exception {
    ConfigMap template = admin.configMaps().inNamespace(namespace).resource(configMap(namespace,
        0)).create();
    Map<AttributeSet, String> map = store.getMap();
    Map.Entry<AttributeSet, String> stored = map.entrySet().stream()
        .filter(e -> e.getValue().contains(template.getMetadata().getUid())).findFirst()
        .orElseThrow();
    AttributeExtractor keys = store.getAttributeExtractor();
    Attribute plural = stored.getKey().getAttribute("plural"); // from the request's path
    if (plural == null || !keys.fromResource(stored.getValue()).add(plural)
        .equals(stored.getKey())) {
      createThroughTheApi(namespace, n);
      return;
    }
    ConfigMap parsed = Serialization.unmarshal(stored.getValue(), ConfigMap.class);
    for (int i = 1; i < n; i++) {
      ConfigMap cm = new ConfigMapBuilder(parsed).editMetadata().withName(name(i))
          .withUid(UUID.randomUUID().toString())
          .withResourceVersion(Long.toString(store.requestResourceVersion())).endMetadata()
          .build();
      String json = Serialization.asJson(cm);
      map.put(keys.fromResource(json).add(plural), json);
    }
  }

  private static ConfigMap configMap(String namespace, int i) {
    return new ConfigMapBuilder().withNewMetadata().withName(name(i)).withNamespace(namespace)
        .endMetadata().withData(Map.of("value", "v0")).build();
  }

  /** Creates ConfigMaps 1 to {@code n - 1} through the API, eight requests at a time. */
  private void createThroughTheApi(String namespace, int n) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int first = t;
        done.add(pool.submit(() -> {
          for (int i = first + 1; i < n; i += 8) {
            admin.configMaps().inNamespace(namespace).resource(configMap(namespace, i)).create();
          }
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "cm-%05d", i);
  }

  /** One replica gains the Lease and replays; {@value #CHANGES} objects change at its start. */
  private String replay(String mode, int run) throws Exception {
    String token = mode + "-" + run;
    List<String> changed = new ArrayList<>();
    for (int i = 0; i < CHANGES; i++) {
      changed.add(name((i * 2 + 1) * OBJECTS / (CHANGES * 2) + run)); // spread over the list
    }
    Map<String, Long> writtenAt = new ConcurrentHashMap<>();
    Map<String, Long> eventAt = new ConcurrentHashMap<>();
    Map<String, Long> seqAtEvent = new ConcurrentHashMap<>();
    Map<String, long[]> reconciledAt = new ConcurrentHashMap<>(); // {nanos, seq}
    Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    Map<String, Long> firstSeen = new ConcurrentHashMap<>();
    List<Long> changeSeqs = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicLong seq = new AtomicLong();
    AtomicLong startedAt = new AtomicLong();
    AtomicBoolean first = new AtomicBoolean(true);
    ExecutorService writer = Executors.newSingleThreadExecutor();
    KubernetesClient client = server.createClient();
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("replay-" + token).inNamespace("replay")
        .priorities(0, mode.equals("low") ? PriorityWorkQueue.LOW_PRIORITY : 0)
        .leaderElection(LeaderElection.lease("replay", "lease-" + token).withIdentity(token))
        .controller(o -> o.workers(WORKERS))
        .withEventFilter(new EventFilter<ConfigMap>() {
          @Override
          public boolean onUpdate(ConfigMap old, ConfigMap now) { // the handler's, as it queues
            if (token.equals(now.getData().get("value"))) {
              seqAtEvent.putIfAbsent(now.getMetadata().getName(), seq.get());
              eventAt.putIfAbsent(now.getMetadata().getName(), System.nanoTime());
            }
            return true;
          }
        })
        .reconciler(request -> {
          long now = System.nanoTime();
          long s = seq.incrementAndGet();
          String key = request.key().name();
          String value = request.object().map(cm -> cm.getData().get("value")).orElse("");
          if (first.getAndSet(false)) {
            startedAt.set(now);
            writer.submit(() -> change(changed, token, writtenAt));
          }
          if (value.equals(token)) {
            reconciledAt.putIfAbsent(key, new long[] {now, s});
            changeSeqs.add(s);
          } else {
            counts.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            firstSeen.putIfAbsent(key, now);
          }
          LockSupport.parkNanos(WORK_NANOS);
          return Result.success();
        })
        .build();
    c.start();
    boolean all = waitUntil(() -> reconciledAt.size() == CHANGES
        && firstSeen.size() >= OBJECTS - CHANGES, 120);
    c.stop(Duration.ofSeconds(10));
    client.close();
    writer.shutdownNow();

    StringBuilder times = new StringBuilder();
    StringBuilder before = new StringBuilder();
    StringBuilder queued = new StringBuilder();
    long worst = 0;
    for (String key : changed) {
      long[] r = reconciledAt.get(key);
      if (r == null || !eventAt.containsKey(key)) {
        times.append(" -");
        before.append(" -");
        continue;
      }
      long from = seqAtEvent.get(key);
      long inBetween = r[1] - from - 1
          - changeSeqs.stream().filter(s -> s > from && s < r[1]).count();
      worst = Math.max(worst, inBetween);
      times.append(String.format(Locale.ROOT, " %.0f/%.1f", (r[0] - writtenAt.get(key)) / 1e6,
          (r[0] - eventAt.get(key)) / 1e6));
      before.append(" ").append(inBetween);
      queued.append(" ").append(OBJECTS - from);
    }
    long twice = counts.entrySet().stream()
        .filter(e -> e.getValue().get() > 1 && !changed.contains(e.getKey())).count();
    long longest = firstSeen.values().stream().mapToLong(t -> t - startedAt.get()).max()
        .orElse(0);
    return String.format(Locale.ROOT, "| %s | %d |%s |%s |%s | %.2f%% | %d | %.2f | %s |", mode,
        run, times, queued, before, 100.0 * worst / OBJECTS, twice, longest / 1e9,
        all ? "yes" : "NO");
  }

  private void change(List<String> changed, String token, Map<String, Long> writtenAt) {
    for (String name : changed) {
      writtenAt.put(name, System.nanoTime()); // a GET and a PUT, each a scan of the store
      admin.configMaps().inNamespace("replay").withName(name).edit(cm ->
          new ConfigMapBuilder(cm).withData(Map.of("value", token)).build());
    }
  }

  /**
   * {@value #AGING_OBJECTS} keys replayed while a stream of priority-0 adds outruns the one
   * worker for {@value #LOAD_NANOS} ns; the aging threshold {@value #AGING_MILLIS} ms, or none.
   */
  private String aging(String mode) throws Exception {
    Map<String, Long> firstSeen = new ConcurrentHashMap<>();
    AtomicLong startedAt = new AtomicLong();
    AtomicLong lastEnd = new AtomicLong();
    AtomicLong reconciles = new AtomicLong();
    AtomicBoolean loading = new AtomicBoolean(true);
    AtomicInteger duringLoad = new AtomicInteger();
    KubernetesClient client = server.createClient();
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("aging-" + mode).inNamespace("aging")
        .leaderElection(LeaderElection.lease("aging", "lease-" + mode).withIdentity(mode))
        .controller(o -> o.queue(() -> {
          WorkQueueBuilder<ObjectKey> b = WorkQueue.<ObjectKey>builder().name("aging-" + mode);
          b = mode.equals("aged") ? b.agingThreshold(Duration.ofMillis(AGING_MILLIS))
              : b.disableAging();
          return b.buildPriority(RateLimiters.defaultControllerRateLimiter());
        }))
        .reconciler(request -> {
          long now = System.nanoTime();
          startedAt.compareAndSet(0, now);
          String key = request.key().name();
          if (!key.startsWith("load-") && firstSeen.putIfAbsent(key, now) == null
              && loading.get()) {
            duringLoad.incrementAndGet();
          }
          LockSupport.parkNanos(AGING_WORK_NANOS);
          lastEnd.set(System.nanoTime());
          reconciles.incrementAndGet();
          return Result.success();
        })
        .build();
    c.start();
    waitUntil(() -> startedAt.get() != 0, 60);
    long end = System.nanoTime() + LOAD_NANOS;
    for (int i = 0; System.nanoTime() < end; i++) { // about 1,400 a second: more than 1 worker
      c.controller().add(ObjectKey.of("aging", "load-" + i));
      LockSupport.parkNanos(600_000);
    }
    loading.set(false);
    waitUntil(() -> firstSeen.size() >= AGING_OBJECTS, 120);
    c.stop(Duration.ofSeconds(10));
    client.close();
    long longest = firstSeen.values().stream().mapToLong(t -> t - startedAt.get()).max()
        .orElse(0);
    // the worker's mean time per reconcile, its gaps included
    double mean = (lastEnd.get() - startedAt.get()) / (double) Math.max(1, reconciles.get());
    double bound = AGING_MILLIS / 1e3 + AGING_OBJECTS * mean / 1e9;
    if (mode.equals("strict")) {
      return String.format(Locale.ROOT, "| strict (no aging) | %d of %d | %.2f | none | - |",
          duringLoad.get(), AGING_OBJECTS, longest / 1e9);
    }
    return String.format(Locale.ROOT, "| %s (%d ms) | %d of %d | %.2f | %.2f | %s |", mode,
        AGING_MILLIS, duringLoad.get(), AGING_OBJECTS, longest / 1e9, bound,
        longest / 1e9 <= bound ? "yes" : "NO");
  }

  private static boolean waitUntil(BooleanSupplier condition, int seconds) {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(10_000_000);
    }
    return true;
  }
}
