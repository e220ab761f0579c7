package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What an {@link Operator} refuses to run, each with the argument named. */
class OperatorBuilderTest {
  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient admin = server.newClient();

  @AfterEach
  void tearDown() {
    server.close();
  }

  @Test
  void aControllerWithItsOwnElectionOrSharding_isRefused_namingTheArgument() {
    KubernetesClient client = server.newClient();
    OperatorBuilder operator = Operator.builder(client);
    String election = assertThrows(IllegalArgumentException.class, () -> operator.controller(
        KubernetesController.builder(client, ConfigMap.class).reconciler(r -> Result.success())
            .leaderElection(LeaderElection.lease(NS, "own")))).getMessage();
    assertTrue(election.startsWith("controller configmap has its own leaderElection(...)"),
        election);
    String sharding = assertThrows(IllegalArgumentException.class, () -> operator.controller(
        KubernetesController.builder(client, ConfigMap.class).reconciler(r -> Result.success())
            .sharding(Sharding.ring(NS, "ring", "a")))).getMessage();
    assertTrue(sharding.startsWith("controller configmap has its own sharding(...): an"
        + " operator's controllers share one ring"), sharding);
    String other = assertThrows(IllegalArgumentException.class, () -> operator.controller(
        KubernetesController.builder(admin, ConfigMap.class).reconciler(r -> Result.success())))
        .getMessage();
    assertTrue(other.contains("another client"), other);
    operator.controller(KubernetesController.builder(client, ConfigMap.class)
        .reconciler(r -> Result.success()));
    operator.controller(KubernetesController.builder(client, ConfigMap.class)
        .reconciler(r -> Result.success()));
    assertEquals("two controllers are named configmap: give one another name (their metrics"
        + " and threads are named after it)",
        assertThrows(IllegalStateException.class, operator::build).getMessage());
  }

  @Test
  void aShardedOperator_refusesLeaderElectionAndToolkitControllers() {
    KubernetesClient client = server.newClient();
    Sharding ring = Sharding.ring(NS, "ring", "a");
    String election = assertThrows(IllegalStateException.class, () -> Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class)
            .reconciler(r -> Result.success()))
        .sharding(ring).leaderElection(LeaderElection.lease(NS, "lease")).build()).getMessage();
    assertTrue(election.startsWith("sharding(...) and leaderElection(...) exclude each other"),
        election);
    String plain = assertThrows(IllegalStateException.class, () -> Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class)
            .reconciler(r -> Result.success()))
        .controller(Controller.<String>builder("plain").reconciler((k, c) -> Result.success())
            .build())
        .sharding(ring).build()).getMessage();
    assertEquals("a sharded operator runs Kubernetes controllers only: plain's keys are not"
        + " objects the ring can split; run it apart", plain);
  }
}
