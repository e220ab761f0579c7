package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Set;

/**
 * The object changes the RBAC tests put the example operator through, on the mock or a real
 * API server: two ConfigMaps created, one updated and one deleted, each step awaited until the
 * operator has applied it.
 */
final class ExampleChanges {
  private ExampleChanges() {}

  /** Creates, updates and deletes, waiting up to {@code seconds} for each to be reconciled. */
  static void createUpdateAndDelete(ConfigMapController example, long seconds) {
    String ns = ConfigMapController.NAMESPACE;
    KubernetesClient k = example.admin();
    for (int i = 1; i <= 2; i++) {
      k.configMaps().inNamespace(ns).resource(new ConfigMapBuilder().withNewMetadata()
          .withName("app-" + i).endMetadata().addToData("greeting", "hello " + i).build())
          .create();
    }
    await().atMost(seconds, SECONDS).until(
        () -> example.derived().keySet().equals(Set.of("app-1-derived", "app-2-derived")));
    k.configMaps().inNamespace(ns).withName("app-1")
        .edit(cm -> new ConfigMapBuilder(cm).addToData("colour", "blue").build());
    k.configMaps().inNamespace(ns).withName("app-2").delete();
    await().atMost(seconds, SECONDS).until(() -> example.derived().keySet()
        .equals(Set.of("app-1-derived")) && example.converged());
  }
}
