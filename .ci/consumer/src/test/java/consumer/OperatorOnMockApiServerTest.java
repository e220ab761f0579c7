package consumer;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.ObjectKey;
import dev.workqueue.kubernetes.Operator;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The README's "Testing a controller on the mock API server", as a user gets it: the
 * Kubernetes module and its test fixture through the BOM, an Operator with one controller on
 * the fixture's mock API server, and a reconcile of the object seeded before the start.
 */
class OperatorOnMockApiServerTest {
  @Test
  void aConfigMapThereAtStart_isReconciled() throws Exception {
    try (MockApiServer server = new MockApiServer()) {
      server.create(new ConfigMapBuilder()
          .withNewMetadata().withNamespace("demo").withName("settings").endMetadata()
          .build());
      KubernetesClient client = server.newClient();
      CountDownLatch reconciled = new CountDownLatch(1);
      Operator operator = Operator.builder(client)
          .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace("demo")
              .reconciler(request -> {
                if (request.key().equals(ObjectKey.of("demo", "settings"))) {
                  reconciled.countDown();
                }
                return Result.success();
              }))
          .build();
      operator.start();
      try {
        assertTrue(reconciled.await(30, TimeUnit.SECONDS), "reconciled");
      } finally {
        operator.stop(Duration.ofSeconds(5));
      }
    }
  }
}
