package dev.workqueue.examples;

import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.LeaderElection;
import dev.workqueue.kubernetes.ObjectKey;
import dev.workqueue.kubernetes.Operator;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.List;

/**
 * Two controllers in one process on one client, one informer per type and one Lease, stopped
 * gracefully on SIGTERM: the ConfigMaps and the Secrets of the namespace {@code demo}, whose
 * reconcilers only print. Runs against the cluster of the current kubeconfig context:
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.TwoControllerOperator
 * </pre>
 */
public final class TwoControllerOperator {
  private TwoControllerOperator() {}

  /**
   * Runs until the process is told to stop.
   *
   * @param args none
   * @throws InterruptedException if interrupted while starting
   */
  public static void main(String[] args) throws InterruptedException {
    KubernetesClient client = new KubernetesClientBuilder().build();
    Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace("demo")
            .reconciler(request -> {
              System.out.println("configmap " + request.key());
              return Result.success();
            }))
        .controller(KubernetesController.builder(client, Secret.class).inNamespace("demo")
            // a Secret named after a ConfigMap is reconciled when the ConfigMap changes
            .watches(ConfigMap.class, cm -> List.of(ObjectKey.of(cm)))
            .reconciler(request -> {
              System.out.println("secret " + request.key());
              return Result.success();
            }))
        .leaderElection(LeaderElection.lease("demo", "two-controller-operator").withDurations(
            Duration.ofSeconds(30), Duration.ofSeconds(10), Duration.ofSeconds(2)))
        .build()
        // On SIGTERM, running reconciles get 10 s: with an election at most (lease - renew) / 2
        .runUntilShutdown(Duration.ofSeconds(10));
  }
}
