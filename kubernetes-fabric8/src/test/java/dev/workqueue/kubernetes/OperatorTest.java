package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two controllers in one {@link Operator}, on the mock API server with a client per replica:
 * one informer per type (counted in the requests the client sends), one Lease for both, and a
 * failover that moves both controllers at once (on a real kube-apiserver too: {@link
 * ApiServers}). The SIGTERM path is {@link OperatorShutdownTest}.
 */
@Timeout(120)
@ExtendWith(ApiServers.class)
class OperatorTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final int OBJECTS = 10;

  private ApiServer server = new MockApiServer(); // a real one for the tests that ask: on(kind)
  private KubernetesClient admin = server.newClient();
  private final SecretCopies.Checker checker = new SecretCopies.Checker(); // every replica's
  private final Map<String, AtomicInteger> reconciles = new ConcurrentHashMap<>(); // replica/ctl
  private final List<Replica> replicas = new ArrayList<>();

  /** A replica: its operator, and the plain toolkit controller it also runs. */
  private record Replica(String id, AtomicBoolean partitioned, Operator operator,
      Controller<String> plain, RecordingMetricsProvider metrics) {
    /** The operator's {@code leader_election_master_status} for its Lease. */
    double masterStatus() {
      return metrics.value("operator-leader",
          ControllerMetricsProvider.LEADER_ELECTION_MASTER_STATUS);
    }
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Replica r : replicas) {
      r.operator().stop(Duration.ofSeconds(5));
    }
    server.close();
  }

  @Test
  void controllersWatchingOneType_shareOneInformer_soTheApiServerSeesOneListAndWatchPerType()
      throws Exception {
    Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
    KubernetesClient client = server.newClient((HttpRequest request) -> {
      for (String plural : List.of("configmaps", "secrets")) {
        String query = request.uri().getRawQuery();
        if (MockApiServer.isList(request, plural)) {
          requests.computeIfAbsent("list " + plural, k -> new AtomicInteger()).incrementAndGet();
        } else if (request.uri().getPath().endsWith("/" + plural) && query != null
            && query.contains("watch=true")) {
          requests.computeIfAbsent("watch " + plural, k -> new AtomicInteger()).incrementAndGet();
        }
      }
      return 0;
    });
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    Replica a = replica("a", client, null);
    a.operator().start();

    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    await().atMost(Duration.ofSeconds(30)).until(() -> count("a/secrets") >= OBJECTS);
    // Both controllers watch ConfigMaps and Secrets: without sharing, two of each.
    assertEquals(Map.of("list configmaps", 1, "watch configmaps", 1, "list secrets", 1,
        "watch secrets", 1), snapshot(requests));
    KubernetesController<?> copies = a.operator().controllers().get(0);
    KubernetesController<?> secrets = a.operator().controllers().get(1);
    await().atMost(Duration.ofSeconds(30)).until(() -> copies.cache(Secret.class).list().size()
        == OBJECTS); // the copies' watch events follow their writes
    assertEquals(OBJECTS, secrets.cache(ConfigMap.class).list().size());

    OperatorHealth health = a.operator().health();
    assertEquals(List.of("copies", "secrets", "plain-a"),
        List.copyOf(health.controllers().keySet()));
    assertTrue(health.isLive() && health.isReady(), health.toString());
    assertEquals(Health.Leadership.NOT_ELECTING, health.controllers().get("copies").leadership());

    assertTrue(a.operator().stop(Duration.ofSeconds(5)), "no reconcile was left running");
    assertFalse(a.operator().health().isReady(), "stopped: not ready");
  }

  @ParameterizedTest(name = "{0} server")
  @EnumSource(ApiServers.Kind.class)
  @Tag(ApiServers.TAG)
  void twoReplicasOfTwoControllers_oneLeadsBoth_andWhenItIsCutOffTheOtherTakesOverBoth(
      ApiServers.Kind kind) throws Exception {
    on(kind);
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    for (String id : List.of("a", "b")) {
      AtomicBoolean partitioned = new AtomicBoolean();
      replicas.add(replica(id, server.newClient(partitioned), partitioned));
    }
    for (Replica r : replicas) {
      r.operator().start();
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> leaders().size() == 1);
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    Replica first = leaders().get(0);
    Replica other = replicas.stream().filter(r -> r != first).findFirst().orElseThrow();
    await().atMost(Duration.ofSeconds(30)).until(() -> count(first.id() + "/secrets") > 0);
    assertEquals(Set.of(true), leading(first), "the leader runs both controllers");
    assertEquals(Set.of(false), leading(other), "the other runs neither");
    assertTrue(first.plain().isRunning() && !other.plain().isRunning(), "and the plain one");
    assertEquals(0, count(other.id() + "/copies") + count(other.id() + "/secrets"));
    assertEquals(1.0, first.masterStatus(), "the leader's leader_election_master_status");
    assertEquals(0.0, other.masterStatus());
    for (Replica r : replicas) {
      OperatorHealth h = r.operator().health();
      assertTrue(h.isReady(), "leader and standby alike: " + h);
      for (Health c : h.controllers().values()) {
        assertEquals(r == first ? Health.Leadership.LEADING : Health.Leadership.STANDING_BY,
            c.leadership());
      }
    }

    first.partitioned().set(true); // it can neither renew nor release the Lease
    for (int i = 0; i < OBJECTS; i++) {
      int n = i;
      admin.configMaps().inNamespace(NS).withName("cm-" + n).edit(cm ->
          new ConfigMapBuilder(cm).withData(Map.of("value", "v2-" + n)).build());
    }
    await().atMost(LEASE.plus(RETRY.multipliedBy(3)).plusSeconds(5))
        .until(() -> other.operator().isLeading());
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    await().atMost(Duration.ofSeconds(30)).until(() -> count(other.id() + "/copies") > 0
        && count(other.id() + "/secrets") > 0);
    assertEquals(Set.of(true), leading(other), "both controllers moved to the new leader");
    assertTrue(other.plain().isRunning(), "and the plain one");
    await().atMost(Duration.ofSeconds(10)).until(() -> leading(first).equals(Set.of(false))
        && !first.plain().isRunning());
    assertFalse(first.operator().isLeading());
    assertEquals(1.0, other.masterStatus(), "the new leader's leader_election_master_status");
    assertEquals(0.0, first.masterStatus());
    assertEquals(List.of(), checker.violations, "no two replicas reconciled at once");
  }

  // ---- helpers ----

  /** Runs the test on a server of {@code kind}: the mock made for every test, or a real one. */
  private void on(ApiServers.Kind kind) {
    ApiServer mock = server;
    server = ApiServers.on(kind, mock, NS);
    admin = server == mock ? admin : server.newClient();
  }

  /**
   * A replica: an operator of two controllers on {@code client}, "copies" (a Secret for each
   * ConfigMap) and "secrets" (each Secret, and the Secret of each ConfigMap that changes), both
   * seen by the shared checker; on the Lease unless {@code partitioned} is null.
   */
  private Replica replica(String id, KubernetesClient client, AtomicBoolean partitioned) {
    ObjectReconciler<ConfigMap> copy = SecretCopies.reconciler(id, client, checker);
    Controller<String> plain = Controller.<String>builder("plain-" + id)
        .reconciler((String key) -> Result.success()).build();
    OperatorBuilder b = Operator.builder(client).controller(plain)
        .controller(KubernetesController.builder(client, ConfigMap.class).name("copies")
            .inNamespace(NS).owns(Secret.class).reconciler(request -> {
              reconciles.computeIfAbsent(id + "/copies", k -> new AtomicInteger())
                  .incrementAndGet();
              return copy.reconcile(request);
            }))
        .controller(KubernetesController.builder(client, Secret.class).name("secrets")
            .inNamespace(NS)
            .watches(ConfigMap.class, cm -> List.of(ObjectKey.of(cm)))
            .reconciler(request -> {
              checker.enter(id, request.key());
              try {
                reconciles.computeIfAbsent(id + "/secrets", k -> new AtomicInteger())
                    .incrementAndGet();
                return Result.success();
              } finally {
                checker.exit(id);
              }
            }));
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    if (partitioned != null) {
      b.leaderElection(LeaderElection.lease(NS, "operator-leader").withIdentity(id)
          .withDurations(LEASE, RENEW, RETRY)).metricsProvider(metrics);
    }
    return new Replica(id, partitioned, b.build(), plain, metrics);
  }

  private int count(String replicaAndController) {
    AtomicInteger n = reconciles.get(replicaAndController);
    return n == null ? 0 : n.get();
  }

  private List<Replica> leaders() {
    return replicas.stream().filter(r -> r.operator().isLeading()).toList();
  }

  private static Set<Boolean> leading(Replica r) {
    Set<Boolean> all = new java.util.HashSet<>();
    r.operator().controllers().forEach(c -> all.add(c.isLeading()));
    return all;
  }

  private static Map<String, Integer> snapshot(Map<String, AtomicInteger> counts) {
    Map<String, Integer> m = new java.util.TreeMap<>();
    counts.forEach((k, v) -> m.put(k, v.get()));
    return m;
  }

  /**
   * A stop while the start waits for the caches (SIGTERM while the informers still list: here
   * the requests hang, and the sync timeout is long) ends that wait at once: the start fails
   * with "stopped", and the stop returns without waiting for the caches.
   */
  @Test
  void aStopDuringTheInitialSync_endsTheStart_insteadOfWaitingForTheCaches() throws Exception {
    KubernetesClient client = server.newClient(new AtomicBoolean(true), true); // hang
    Operator operator = Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace(NS)
            .cacheSyncTimeout(Duration.ofMinutes(10)).reconciler(r -> Result.success()))
        .build();
    CompletableFuture<Void> start = CompletableFuture.runAsync(() -> {
      try {
        operator.start();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    await().atMost(Duration.ofSeconds(30)).until(() -> !operator.health().controllers()
        .get("configmap").watches().isEmpty()); // its informer started: the start waits
    CompletableFuture<Boolean> stop = CompletableFuture.supplyAsync(() -> {
      try {
        return operator.stop(Duration.ofSeconds(1));
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(stop.get(30, TimeUnit.SECONDS), "no reconcile ran: nothing was cut");
    ExecutionException failed = assertThrows(ExecutionException.class,
        () -> start.get(30, TimeUnit.SECONDS));
    assertTrue(failed.getCause().getMessage().contains("stopped while"), failed.toString());
    OperatorHealth health = operator.health();
    assertTrue(health.isLive() && !health.isReady(), "stopped on purpose: " + health);
  }
}
