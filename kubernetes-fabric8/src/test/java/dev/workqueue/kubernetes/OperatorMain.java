package dev.workqueue.kubernetes;

import dev.workqueue.controller.Result;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;

/**
 * The operator {@link OperatorShutdownTest} runs in a child JVM and ends with SIGTERM: two
 * controllers on one Lease, whose ConfigMap reconcile takes {@code reconcileMillis} (cut short
 * by an interrupt). It prints what the test waits for: {@code LEADING}, {@code RECONCILING
 * name}, {@code FINISHED name}, {@code CUT name}.
 *
 * <p>Arguments: the API server's URL, the identity, reconcileMillis, budgetMillis.
 */
public final class OperatorMain {
  static final String LEASE = "child-leader";

  private OperatorMain() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String identity = args[1];
    long reconcileMillis = Long.parseLong(args[2]);
    Duration budget = Duration.ofMillis(Long.parseLong(args[3]));
    KubernetesClient client = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(Config.empty()).withMasterUrl(url).build()).build();
    Operator operator = Operator.builder(client)
        .controller(KubernetesController.builder(client, ConfigMap.class).inNamespace(
            SecretCopies.NS).reconciler(request -> {
              String name = request.key().name();
              System.out.println("RECONCILING " + name);
              try {
                Thread.sleep(reconcileMillis);
                System.out.println("FINISHED " + name);
              } catch (InterruptedException e) {
                System.out.println("CUT " + name);
              }
              return Result.success();
            }))
        .controller(KubernetesController.builder(client, Secret.class).inNamespace(
            SecretCopies.NS).reconciler(request -> Result.success()))
        .leaderElection(LeaderElection.lease(SecretCopies.NS, LEASE).withIdentity(identity)
            .withDurations(Duration.ofSeconds(12), Duration.ofSeconds(4), Duration.ofSeconds(1)))
        .build()
        .installShutdownHook(budget);
    operator.start();
    while (!operator.isLeading()) {
      Thread.sleep(50);
    }
    System.out.println("LEADING");
    operator.awaitStop();
  }
}
