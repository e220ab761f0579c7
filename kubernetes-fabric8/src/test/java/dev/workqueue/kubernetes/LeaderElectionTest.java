package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replicas on one Lease, each with its own client of one mock API server: one reconciles at a
 * time, a crashed leader's Lease is taken over and nothing is lost; the failover runs on a real
 * kube-apiserver too ({@link ApiServers}). The elector ({@link LeaseElector}) runs on real time,
 * so the durations are short and the waits use Awaitility.
 */
@Timeout(120)
@ExtendWith(ApiServers.class)
class LeaderElectionTest {
  private static final Duration LEASE = Duration.ofSeconds(3);
  private static final Duration RENEW = Duration.ofSeconds(2);
  private static final Duration RETRY = Duration.ofMillis(250);
  private static final int OBJECTS = 20;

  private ApiServer server = new MockApiServer(); // a real one for the tests that ask: on(kind)
  private KubernetesClient admin = server.newClient();
  private final SecretCopies.Checker checker = new SecretCopies.Checker();
  private final List<Replica> replicas = new ArrayList<>();

  /** A replica: its own client, which can be cut off from the server, and its controller. */
  private record Replica(String id, KubernetesClient client, AtomicBoolean partitioned,
      KubernetesController<ConfigMap> controller, RecordingMetricsProvider metrics) {
    double masterStatus() {
      return metrics.value("copies-leader", ControllerMetricsProvider.LEADER_ELECTION_MASTER_STATUS);
    }
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    for (Replica r : replicas) {
      r.controller().stop(Duration.ofSeconds(5));
    }
    server.close();
  }

  static Stream<Arguments> failovers() {
    return Stream.of(ApiServers.Kind.values()).flatMap(kind -> Stream.of(
        Arguments.of(kind, 2, "refused"), Arguments.of(kind, 3, "refused"),
        Arguments.of(kind, 2, "hang")));
  }

  @ParameterizedTest(name = "{0} server: {1} replicas, the leader's requests {2}")
  @MethodSource("failovers")
  @Tag(ApiServers.TAG)
  void oneReplicaReconcilesAtATime_andACrashedLeaderIsReplaced_losingNothing(
      ApiServers.Kind kind, int count, String cut) throws Exception {
    on(kind);
    for (int i = 0; i < OBJECTS; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    for (int i = 0; i < count; i++) {
      replicas.add(replica("replica-" + i, LEASE, RENEW, cut.equals("hang")));
    }
    for (Replica r : replicas) {
      r.controller().start();
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> leaders().size() == 1);
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    Replica first = leaders().get(0);
    assertEquals(1, leaders().size(), "exactly one leads");
    for (Replica r : replicas) {
      Health h = r.controller().health();
      assertTrue(h.isReady(), "leader and standbys alike: " + h);
      assertEquals(r == first ? Health.Leadership.LEADING : Health.Leadership.STANDING_BY,
          h.leadership());
      assertEquals(r == first ? 1.0 : 0.0, r.masterStatus(), "leader_election_master_status");
    }

    // The leader is cut off from the API server: it can neither renew nor release the Lease.
    first.partitioned().set(true);
    for (int i = 0; i < OBJECTS; i++) {
      int n = i;
      admin.configMaps().inNamespace(NS).withName("cm-" + n).edit(cm ->
          new ConfigMapBuilder(cm).withData(Map.of("value", "v2-" + n)).build());
    }

    // Another replica takes the Lease once it expires (lease duration after its last renewal,
    // as the others observe it: client-go's retry jitter adds up to 2.2 retry periods; the
    // rest is slack for a loaded machine), and reconciles what changed meanwhile.
    await().atMost(LEASE.plus(RETRY.multipliedBy(3)).plusSeconds(2))
        .until(() -> leaders().stream().anyMatch(r -> r != first));
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    Replica second = leaders().stream().filter(r -> r != first).findFirst().orElseThrow();
    assertNotEquals(first.id(), second.id());
    assertTrue(checker.reconciles.get(second.id()).get() > 0, "the new leader reconciled");
    assertEquals(List.of(), checker.violations, "no two replicas reconciled at once");
    assertEquals(1.0, second.masterStatus());
    assertEquals(0.0, first.masterStatus(), "the cut-off leader knows it lost the Lease");

    for (Replica r : replicas) {
      r.controller().stop(Duration.ofSeconds(5));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> ToolkitThreads.alive().isEmpty());
  }

  @Test
  void aStoppedLeaderReleasesTheLease_andAnotherTakesItWithoutWaitingForExpiry()
      throws Exception {
    // A long lease: only a release lets the second replica in within the wait below.
    Duration longLease = Duration.ofSeconds(60);
    Replica a = replica("a", longLease, Duration.ofSeconds(10));
    Replica b = replica("b", longLease, Duration.ofSeconds(10));
    replicas.add(a);
    replicas.add(b);
    a.controller().start();
    await().atMost(Duration.ofSeconds(10)).until(() -> a.controller().isLeading());
    b.controller().start();

    a.controller().stop(Duration.ofSeconds(5));
    await().atMost(Duration.ofSeconds(20)).until(() -> b.controller().isLeading());
    assertTrue(!a.controller().isLeading());
  }

  @Test
  void aLeaderWhoseLeaseIsTaken_stopsItsWorkers_andOnRegainingItReconcilesWhatChangedMeanwhile()
      throws Exception {
    for (int i = 0; i < 5; i++) {
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("cm-" + i, "v1")).create();
    }
    Replica a = replica("a");
    replicas.add(a);
    a.controller().start();
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());

    // Another holder takes the Lease (as a replica would after a partition): a stops leading.
    admin.leases().inNamespace(NS).withName("copies-leader").edit(l -> new LeaseBuilder(l)
        .editSpec().withHolderIdentity("intruder").endSpec().build());
    await().atMost(Duration.ofSeconds(10)).until(() -> !a.controller().isLeading());
    int before = checker.reconciles.get("a").get();
    for (int i = 0; i < 5; i++) {
      int n = i;
      admin.configMaps().inNamespace(NS).withName("cm-" + n).edit(cm ->
          new ConfigMapBuilder(cm).withData(Map.of("value", "v2-" + n)).build());
    }
    // The intruder never renews: a takes the Lease back once it expires, and the replay of its
    // cache reconciles the changes its stopped workers did not see.
    await().atMost(Duration.ofSeconds(30))
        .until(() -> SecretCopies.unconverged(admin).isEmpty());
    assertTrue(a.controller().isLeading());
    assertTrue(checker.reconciles.get("a").get() >= before + 5);
  }

  @Test
  void aStopWhoseReconcilesDoNotFinish_leavesTheLeaseToExpire() throws Exception {
    java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    KubernetesClient client = server.newClient();
    KubernetesController<ConfigMap> a = KubernetesController.builder(client, ConfigMap.class)
        .name("copies").inNamespace(NS)
        .reconciler(request -> {
          entered.countDown();
          while (true) { // ignores interrupts, as a reconciler stuck in a library might
            try {
              if (release.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
                return null;
              }
            } catch (InterruptedException ignored) {
              // goes on waiting
            }
          }
        })
        .leaderElection(LeaderElection.lease(NS, "copies-leader").withIdentity("a")
            .withDurations(LEASE, RENEW, RETRY))
        .build();
    a.start();
    try {
      await().atMost(Duration.ofSeconds(10)).until(a::isLeading);
      admin.configMaps().inNamespace(NS).resource(SecretCopies.source("stuck", "1")).create();
      assertTrue(entered.await(10, java.util.concurrent.TimeUnit.SECONDS));

      assertTrue(!a.stop(Duration.ofMillis(100)).completed(), "the reconcile is still running");
      assertEquals("a", admin.leases().inNamespace(NS).withName("copies-leader").get()
          .getSpec().getHolderIdentity(), "not released while a reconcile runs: it expires");
    } finally {
      release.countDown();
    }
  }

  @Test
  void badDurations_areRefusedNamingTheArgument() {
    LeaderElection base = LeaderElection.lease("ns", "lock");
    assertTrue(assertThrows(IllegalArgumentException.class, () -> base.withDurations(
        Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(2))).getMessage()
        .startsWith("leaseDuration must be more than renewDeadline"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> base.withDurations(
        Duration.ofSeconds(15), Duration.ofSeconds(2), Duration.ofSeconds(2))).getMessage()
        .startsWith("renewDeadline must be more than 1.2 x retryPeriod"));
    // The Lease keeps whole seconds: a 1.5 s lease would be 1 s to the other replicas, which
    // then take a Lease its holder still renews within its renew deadline.
    assertTrue(assertThrows(IllegalArgumentException.class, () -> base.withDurations(
        Duration.ofMillis(1500), Duration.ofSeconds(1), Duration.ofMillis(200))).getMessage()
        .startsWith("leaseDuration must be whole seconds"));
    assertEquals("identity must not be empty",
        assertThrows(IllegalArgumentException.class, () -> base.withIdentity("")).getMessage());
  }

  // ---- helpers ----

  /** Runs the test on a server of {@code kind}: the mock made for every test, or a real one. */
  private void on(ApiServers.Kind kind) {
    ApiServer mock = server;
    server = ApiServers.on(kind, mock, NS);
    admin = server == mock ? admin : server.newClient();
  }

  private List<Replica> leaders() {
    return replicas.stream().filter(r -> r.controller().isLeading()).toList();
  }

  private Replica replica(String id) {
    return replica(id, LEASE, RENEW, false);
  }

  private Replica replica(String id, Duration lease, Duration renew) {
    return replica(id, lease, renew, false);
  }

  private Replica replica(String id, Duration lease, Duration renew, boolean hang) {
    AtomicBoolean partitioned = new AtomicBoolean();
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    KubernetesClient client = server.newClient(partitioned, hang);
    KubernetesController<ConfigMap> c = KubernetesController.builder(client, ConfigMap.class)
        .name("copies")
        .inNamespace(NS)
        .owns(Secret.class)
        .reconciler(SecretCopies.reconciler(id, client, checker))
        .leaderElection(LeaderElection.lease(NS, "copies-leader").withIdentity(id)
            .withDurations(lease, renew, RETRY))
        .controller(b -> b.workers(2))
        .metricsProvider(metrics)
        .build();
    return new Replica(id, client, partitioned, c, metrics);
  }
}
