package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.Operator;
import dev.workqueue.kubernetes.Sharding;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The README's "A sharded operator", as a user gets it: two replicas of an Operator of two
 * controllers on one shard ring, on the fixture's mock API server, each with its own client;
 * every ConfigMap is reconciled, by one replica or the other, and both are members.
 */
class ShardedOperatorOnMockApiServerTest {
  @Test
  void twoReplicas_shareOneRing_andReconcileEveryConfigMap() throws Exception {
    try (MockApiServer server = new MockApiServer()) {
      for (int i = 0; i < 20; i++) {
        server.create(new ConfigMapBuilder().withNewMetadata().withNamespace("demo")
            .withName("cm-" + i).endMetadata().build());
      }
      Map<String, String> reconciledBy = new ConcurrentHashMap<>();
      Operator a = replica(server, "a", reconciledBy);
      Operator b = replica(server, "b", reconciledBy);
      try {
        a.start();
        b.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && (reconciledBy.size() < 20
            || !b.shardMembers().equals(List.of("a", "b"))
            || !reconciledBy.containsValue("b"))) {
          Thread.sleep(50); // a user's wait; the toolkit's own tests use Awaitility
        }
        assertEquals(List.of("a", "b"), a.shardMembers());
        assertEquals(20, reconciledBy.size(), reconciledBy.toString());
        assertTrue(reconciledBy.containsValue("b"), "b took its share: " + reconciledBy);
      } finally {
        a.stop(Duration.ofSeconds(5));
        b.stop(Duration.ofSeconds(5));
      }
    }
  }

  private static Operator replica(MockApiServer server, String id,
      Map<String, String> reconciledBy) {
    KubernetesClient client = server.newClient(); // one client per replica
    return Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace("demo")
            .name("configmaps-" + id) // the replicas share this JVM: one name each
            .reconciler(request -> {
              reconciledBy.put(request.key().toString(), id);
              return Result.success();
            }))
        .controller(KubernetesController.builder(client, Secret.class).inNamespace("demo")
            .name("secrets-" + id).reconciler(request -> Result.success()))
        .sharding(Sharding.ring("demo", "consumer", id).withDurations(Duration.ofSeconds(2),
            Duration.ofMillis(1500), Duration.ofMillis(250)))
        .build();
  }
}
