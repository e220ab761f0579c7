package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Sharded replicas on one mock API server, each with its own client: they split 3,000 objects
 * evenly, a fourth replica joining and one leaving move about 1/n of the keys, a replica cut
 * off from the server loses its keys once its Lease expires, every object converges, and no
 * key is ever reconciled by two replicas at once (a checker over every reconcile's start and
 * end). The same on a real kube-apiserver ({@link ApiServers}).
 */
@Timeout(180)
@ExtendWith(ApiServers.class)
class ShardingTest {
  private static final int OBJECTS = 3000;
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration RENEW = Duration.ofMillis(1500);
  private static final Duration RETRY = Duration.ofMillis(250);

  private ApiServer server = new MockApiServer(); // a real one for the tests that ask: on(kind)
  private KubernetesClient admin = server.newClient();
  private final Map<String, Replica> replicas = new LinkedHashMap<>();
  /** Key to the replica reconciling it now. */
  private final Map<String, String> reconciling = new ConcurrentHashMap<>();
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  /** Key to the value its last reconcile saw, and to the replica that did it. */
  private final Map<String, String> applied = new ConcurrentHashMap<>();
  private final Map<String, String> appliedBy = new ConcurrentHashMap<>();
  /** Key to the value the test last wrote. */
  private final Map<String, String> expected = new ConcurrentHashMap<>();
  /** The rings each replica's members listener was told, in order. */
  private final Map<String, List<List<String>>> told = new ConcurrentHashMap<>();

  private record Replica(String id, AtomicBoolean cutOff, KubernetesController<ConfigMap> c,
      RecordingMetricsProvider metrics) {
    double gauge(String metric) {
      return metrics.value("copies", metric);
    }
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Replica r : replicas.values()) {
      r.c().stop(Duration.ofSeconds(2));
    }
    server.close();
    await().atMost(Duration.ofSeconds(10)).until(() -> ToolkitThreads.alive().isEmpty());
  }

  /** Runs the test on a server of {@code kind}: the mock made for every test, or a real one. */
  private void on(ApiServers.Kind kind) {
    ApiServer mock = server;
    server = ApiServers.on(kind, mock, NS);
    admin = server == mock ? admin : server.newClient();
  }

  private Replica start(String id) throws InterruptedException {
    AtomicBoolean cut = new AtomicBoolean();
    KubernetesClient client = server.newClient(cut);
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("sharded-" + id) // one process hosts every replica: one metric name each
        .inNamespace(NS)
        .sharding(Sharding.ring(NS, "copies", id).withDurations(LEASE, RENEW, RETRY)
            .withMembersListener(ring -> told.computeIfAbsent(id,
                k -> Collections.synchronizedList(new ArrayList<>())).add(ring)))
        .controller(b -> b.workers(2))
        .metricsProvider(metrics)
        .reconciler(request -> {
          String key = request.key().toString();
          String other = reconciling.putIfAbsent(key, id);
          if (other != null) {
            violations.add(key + " reconciled by " + id + " while " + other + " was");
          }
          try {
            request.object().ifPresent(cm -> {
              applied.put(key, SecretCopies.value(cm));
              appliedBy.put(key, id);
            });
            return Result.success();
          } finally {
            reconciling.remove(key, id);
          }
        })
        .build();
    Replica r = new Replica(id, cut, c, metrics);
    replicas.put(id, r);
    c.start();
    return r;
  }

  private List<String> running() {
    List<String> ids = new ArrayList<>();
    replicas.forEach((id, r) -> {
      if (!r.cutOff().get() && r.c().isLeading()) {
        ids.add(id);
      }
    });
    return ids;
  }

  /** Every running replica splits the keys among exactly the running replicas. */
  private void awaitRing(List<String> members) {
    List<String> sorted = new ArrayList<>(new TreeSet<>(members));
    await().atMost(Duration.ofSeconds(30)).until(() -> members.stream()
        .allMatch(id -> replicas.get(id).c().shardMembers().equals(sorted)));
  }

  private void update(int from, int to, String value) {
    for (int i = from; i < to; i++) {
      int n = i;
      admin.configMaps().inNamespace(NS).withName("cm-" + n).edit(cm ->
          new ConfigMapBuilder(cm).withData(Map.of("value", value + "-" + n)).build());
      expected.put(NS + "/cm-" + n, value + "-" + n);
    }
  }

  /**
   * Every object's current value was seen by a reconcile, the last one by the object's owner
   * among {@code ring}: a key that moved was reconciled by its new owner (the re-list on gain).
   */
  private void awaitConverged(List<String> ring, Duration within) {
    Map<String, String> owners = owners(ring);
    await().atMost(within).pollInterval(Duration.ofMillis(50))
        .until(() -> unconverged(owners).isEmpty());
  }

  private List<String> unconverged(Map<String, String> owners) {
    List<String> behind = new ArrayList<>();
    expected.forEach((key, value) -> {
      if (!value.equals(applied.get(key)) || !owners.get(key).equals(appliedBy.get(key))) {
        behind.add(key + " (" + applied.get(key) + " by " + appliedBy.get(key) + ")");
      }
    });
    return behind;
  }

  private static Map<String, String> owners(List<String> ring) {
    TreeSet<String> members = new TreeSet<>(ring);
    Map<String, String> owners = new HashMap<>();
    for (int i = 0; i < OBJECTS; i++) {
      String key = NS + "/cm-" + i;
      owners.put(key, Rendezvous.owner(key, members));
    }
    return owners;
  }

  private static double moved(Map<String, String> before, Map<String, String> after) {
    return before.keySet().stream().filter(k -> !before.get(k).equals(after.get(k))).count()
        / (double) OBJECTS;
  }

  @ParameterizedTest(name = "{0} server")
  @EnumSource(ApiServers.Kind.class)
  @Tag(ApiServers.TAG)
  void threeReplicasSplitTheKeys_aJoinALeaveAndACutOffMoveAboutOneNth_neverTwoOnOneKey(
      ApiServers.Kind kind) throws Exception {
    on(kind);
    for (int i = 0; i < OBJECTS; i++) {
      ConfigMap cm = admin.configMaps().inNamespace(NS)
          .resource(SecretCopies.source("cm-" + i, "v1")).create();
      expected.put(NS + "/cm-" + i, SecretCopies.value(cm));
    }
    for (String id : List.of("replica-a", "replica-b", "replica-c")) {
      start(id);
    }
    awaitRing(running());
    awaitConverged(running(), Duration.ofSeconds(60));

    // balanced: each key reconciled by its owner, 3,000 keys split within 1.5 of each other
    Map<String, Integer> perReplica = new HashMap<>();
    owners(running()).forEach((key, owner) -> {
      assertEquals(owner, appliedBy.get(key), key);
      perReplica.merge(owner, 1, Integer::sum);
    });
    int max = Collections.max(perReplica.values());
    int min = Collections.min(perReplica.values());
    assertTrue(max <= 1.5 * min, "balanced: " + perReplica);

    // a fourth replica joins: about a quarter of the keys move to it, and only to it
    Map<String, String> three = owners(running());
    start("replica-d");
    awaitRing(running());
    Map<String, String> four = owners(running());
    double joinMoved = moved(three, four);
    assertTrue(joinMoved > 0.15 && joinMoved < 0.35, "a join moved " + joinMoved);
    update(0, 600, "v2"); // events reach the owner; the moved keys came by the re-list on gain
    awaitConverged(running(), Duration.ofSeconds(60));
    four.forEach((key, owner) -> assertEquals(owner, appliedBy.get(key), key));
    Replica d = replicas.get("replica-d");
    long gainedByD = four.values().stream().filter("replica-d"::equals).count();
    await().atMost(Duration.ofSeconds(10)).until(() -> running().stream().allMatch(id ->
        replicas.get(id).gauge(ControllerMetricsProvider.SHARD_MEMBERS) == 4.0));
    assertEquals(gainedByD, d.gauge(ControllerMetricsProvider.SHARD_KEYS_OWNED));
    assertEquals(gainedByD, d.metrics().count("copies", ControllerMetricsProvider.SHARD_HANDOVERS),
        "a newcomer's first ring gives it every key it owns");
    assertEquals(gainedByD, d.metrics().observations("copies",
        ControllerMetricsProvider.SHARD_HANDOVER_TIME).size(), "each gained key's first reconcile");
    List<String> fourIds = List.of("replica-a", "replica-b", "replica-c", "replica-d");
    for (String id : fourIds) {
      List<List<String>> rings = told.get(id);
      assertEquals(fourIds, rings.get(rings.size() - 1), id + " was told the ring: " + rings);
      Health h = replicas.get(id).c().health();
      assertEquals(Health.Leadership.SHARD_MEMBER, h.leadership());
      assertTrue(h.isReady(), h.toString());
    }
    assertEquals(OBJECTS, running().stream().mapToDouble(id ->
        replicas.get(id).gauge(ControllerMetricsProvider.SHARD_KEYS_OWNED)).sum(),
        "every key owned by exactly one replica");

    // one leaves gracefully: its Lease goes at once, so the others need not wait for expiry
    long leaveStart = System.nanoTime();
    Replica leaving = replicas.get("replica-b");
    assertTrue(leaving.c().stop(Duration.ofSeconds(5)).completed());
    replicas.remove("replica-b");
    awaitRing(running());
    double leaveSeconds = (System.nanoTime() - leaveStart) / 1e9;
    assertTrue(leaveSeconds < LEASE.toSeconds() + 1.0,
        "the others took replica-b's keys without waiting for its Lease: " + leaveSeconds);
    Map<String, String> afterLeave = owners(running());
    double leaveMoved = moved(four, afterLeave);
    assertTrue(leaveMoved > 0.15 && leaveMoved < 0.35, "a leave moved " + leaveMoved);
    update(600, 1200, "v3");
    awaitConverged(running(), Duration.ofSeconds(60));
    afterLeave.forEach((key, owner) -> assertEquals(owner, appliedBy.get(key), key));

    // one is cut off from the API server: its renewals stop; after its Lease expires the
    // others pick up its keys, changed meanwhile, and none is lost
    Replica cut = replicas.get("replica-c");
    cut.cutOff().set(true);
    update(1200, 1800, "v4");
    awaitRing(running());
    awaitConverged(running(), Duration.ofSeconds(60));
    owners(running()).forEach((key, owner) -> assertEquals(owner, appliedBy.get(key), key));
    Health cutHealth = cut.c().health();
    assertEquals(Health.Leadership.SHARD_MEMBER_CUT_OFF, cutHealth.leadership());
    assertTrue(!cutHealth.isReady(), "a member that cannot renew starts nothing: not ready");

    assertEquals(List.of(), violations, "no key reconciled by two replicas at once");
    System.out.printf("Sharding on the %s API server: %d objects; join moved %.3f, leave"
        + " %.3f (1/4 = 0.25); leave handed over in %.2f s (lease %s)%n", kind, OBJECTS, joinMoved,
        leaveMoved, leaveSeconds, LEASE);
  }

  @Test
  void shardingAndLeaderElectionExcludeEachOther_andBadNamesAreRefused() {
    assertThrows(IllegalStateException.class, () -> KubernetesController
        .builder(admin, ConfigMap.class).reconciler(r -> null)
        .sharding(Sharding.ring(NS, "ring", "a"))
        .leaderElection(LeaderElection.lease(NS, "lease")).build());
    assertEquals("identity must be lowercase letters, digits and '-', starting and ending with a"
        + " letter or digit, at most 63 characters; was 'Replica_1'",
        assertThrows(IllegalArgumentException.class,
            () -> Sharding.ring(NS, "ring", "Replica_1")).getMessage());
    assertThrows(IllegalArgumentException.class, () -> Sharding.ring(NS, "ring", "a")
        .withDurations(Duration.ofMillis(1500), Duration.ofSeconds(1), RETRY));
  }
}
