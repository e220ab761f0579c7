package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sharded {@link Operator} of two controllers (ConfigMaps and Secrets), three replicas on the
 * mock API server, each with its own client: one Lease per replica in the one ring, every key
 * of both types reconciled by its owner and never by two replicas at once (a checker over every
 * reconcile's start and end), the ring's metrics counted over both controllers; a replica that
 * stops hands the keys of both controllers over, and so does one cut off from the server. The
 * same on a real kube-apiserver ({@link ApiServers}).
 */
@Timeout(180)
@ExtendWith(ApiServers.class)
class OperatorShardingTest {
  private static final int OBJECTS = 150; // of each type, named alike: obj-0 .. obj-149
  private static final String RING = "ops";
  private static final Duration LEASE = Duration.ofSeconds(2);
  private static final Duration RENEW = Duration.ofMillis(1500);
  private static final Duration RETRY = Duration.ofMillis(250);

  private ApiServer server = new MockApiServer(); // a real one for the tests that ask: on(kind)
  private KubernetesClient admin = server.newClient();
  private final Map<String, Replica> replicas = new LinkedHashMap<>();
  /** "Kind ns/name" to the replica reconciling it now. */
  private final Map<String, String> reconciling = new ConcurrentHashMap<>();
  private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
  /** "Kind ns/name" to the value its last reconcile saw, and the replica that did it. */
  private final Map<String, String> applied = new ConcurrentHashMap<>();
  private final Map<String, String> appliedBy = new ConcurrentHashMap<>();
  private final Map<String, String> expected = new ConcurrentHashMap<>();

  private record Replica(String id, AtomicBoolean cutOff, Operator operator,
      RecordingMetricsProvider metrics) {
    double gauge(String metric) {
      return metrics.value(RING, metric);
    }
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Replica r : replicas.values()) {
      r.operator().stop(Duration.ofSeconds(2));
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

  private <R extends HasMetadata> ObjectReconciler<R> reconciler(String id, String kind) {
    return request -> {
      String key = kind + " " + request.key();
      String other = reconciling.putIfAbsent(key, id);
      if (other != null) {
        violations.add(key + " reconciled by " + id + " while " + other + " was");
      }
      try {
        request.object().ifPresent(o -> {
          applied.put(key, value(o));
          appliedBy.put(key, id);
        });
        return Result.success();
      } finally {
        reconciling.remove(key, id);
      }
    };
  }

  private Replica start(String id) throws InterruptedException {
    AtomicBoolean cut = new AtomicBoolean();
    KubernetesClient client = server.newClient(cut);
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    Operator operator = Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
            .name("configmaps-" + id) // one process hosts every replica: one name each
            .reconciler(reconciler(id, "ConfigMap")))
        .controller(KubernetesController.builder(client, Secret.class).inNamespace(NS)
            .name("secrets-" + id).reconciler(reconciler(id, "Secret")))
        .sharding(Sharding.ring(NS, RING, id).withDurations(LEASE, RENEW, RETRY))
        .metricsProvider(metrics)
        .build();
    Replica r = new Replica(id, cut, operator, metrics);
    replicas.put(id, r);
    operator.start();
    return r;
  }

  private List<String> running() {
    List<String> ids = new ArrayList<>();
    replicas.forEach((id, r) -> {
      if (!r.cutOff().get()) {
        ids.add(id);
      }
    });
    return ids;
  }

  private void awaitRing() {
    List<String> members = running();
    await().atMost(Duration.ofSeconds(30)).until(() -> members.stream()
        .allMatch(id -> replicas.get(id).operator().shardMembers().equals(members)));
  }

  /** Each key's owner among {@code ring}: the ring hashes {@code ns/name}, whatever the kind. */
  private static Map<String, String> owners(List<String> ring) {
    Map<String, String> owners = new HashMap<>();
    for (int i = 0; i < OBJECTS; i++) {
      String owner = Rendezvous.owner(NS + "/obj-" + i, new TreeSet<>(ring));
      owners.put("ConfigMap " + NS + "/obj-" + i, owner);
      owners.put("Secret " + NS + "/obj-" + i, owner);
    }
    return owners;
  }

  /** Every object's current value was seen by a reconcile of its owner among the running. */
  private void awaitConverged() {
    Map<String, String> owners = owners(running());
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
        .until(() -> expected.entrySet().stream().allMatch(e ->
            e.getValue().equals(applied.get(e.getKey()))
            && owners.get(e.getKey()).equals(appliedBy.get(e.getKey()))));
  }

  private void write(String value) {
    for (int i = 0; i < OBJECTS; i++) {
      String name = "obj-" + i;
      Map<String, String> v = Map.of("value", value + "-" + i);
      admin.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata()
          .withName(name).withNamespace(NS).withAnnotations(v).endMetadata().build())
          .createOr(NonDeletingOperation::update);
      admin.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata()
          .withName(name).withNamespace(NS).withAnnotations(v).endMetadata().build())
          .createOr(NonDeletingOperation::update);
      expected.put("ConfigMap " + NS + "/" + name, value + "-" + i);
      expected.put("Secret " + NS + "/" + name, value + "-" + i);
    }
  }

  private static String value(HasMetadata o) {
    return Optional.ofNullable(o.getMetadata().getAnnotations()).map(a -> a.get("value"))
        .orElse("");
  }

  /** The hand-overs the running replicas counted, over both their controllers. */
  private long handOvers() {
    return replicas.values().stream().mapToLong(r -> r.metrics().count(RING,
        ControllerMetricsProvider.SHARD_HANDOVERS)).sum();
  }

  private List<String> leases() {
    return admin.leases().inNamespace(NS).withLabel(Sharding.RING_LABEL, RING).list()
        .getItems().stream().map(l -> l.getMetadata().getName()).sorted().toList();
  }

  @ParameterizedTest(name = "{0} server")
  @EnumSource(ApiServers.Kind.class)
  @Tag(ApiServers.TAG)
  void threeReplicasOfTwoControllers_oneRing_eachKeyOnItsOwner_andAStopOrCutOffMovesBoth(
      ApiServers.Kind kind) throws Exception {
    on(kind);
    write("v1");
    for (String id : List.of("replica-a", "replica-b", "replica-c")) {
      start(id);
    }
    awaitRing();
    awaitConverged();
    assertEquals(List.of(RING + ".replica-a", RING + ".replica-b", RING + ".replica-c"),
        leases(), "one Lease per replica, not one per controller");
    for (Replica r : replicas.values()) {
      OperatorHealth h = r.operator().health();
      assertTrue(h.isReady(), h.toString());
      h.controllers().values().forEach(c ->
          assertEquals(Health.Leadership.SHARD_MEMBER, c.leadership(), h.toString()));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> replicas.values().stream()
        .allMatch(r -> r.gauge(ControllerMetricsProvider.SHARD_MEMBERS) == 3.0
            && r.gauge(ControllerMetricsProvider.SHARD_KEYS_OWNED) > 0));
    assertEquals(2.0 * OBJECTS, replicas.values().stream().mapToDouble(r ->
        r.gauge(ControllerMetricsProvider.SHARD_KEYS_OWNED)).sum(),
        "every key of both controllers owned by exactly one replica");

    // b stops: its Lease goes, and a and c take its keys of both kinds, with no change made
    Map<String, String> three = owners(running());
    Replica b = replicas.remove("replica-b");
    long handOversBefore = handOvers(); // a's and c's
    assertTrue(b.operator().stop(Duration.ofSeconds(5)), "its reconciles ended");
    awaitRing();
    assertEquals(List.of(RING + ".replica-a", RING + ".replica-c"), leases());
    awaitConverged(); // the keys b had are re-listed by their new owners on the gain
    long movedFromB = three.values().stream().filter("replica-b"::equals).count();
    assertTrue(movedFromB > 0 && three.keySet().stream().anyMatch(k -> k.startsWith("Secret")
        && three.get(k).equals("replica-b")), "b owned keys of both kinds: " + movedFromB);
    assertTrue(handOvers() - handOversBefore >= movedFromB, "a and c count each key they"
        + " gained from b, of both controllers: " + (handOvers() - handOversBefore) + " < "
        + movedFromB);

    // c is cut off from the API server: once its Lease expires, a takes everything
    write("v2");
    Replica c = replicas.get("replica-c");
    c.cutOff().set(true);
    awaitRing();
    awaitConverged();
    OperatorHealth cutHealth = c.operator().health();
    assertFalse(cutHealth.isReady(), "a member that cannot renew starts nothing: " + cutHealth);
    assertEquals(Health.Leadership.SHARD_MEMBER_CUT_OFF,
        cutHealth.controllers().get("secrets-replica-c").leadership());

    assertEquals(List.of(), violations, "no key reconciled by two replicas at once");
  }
}
