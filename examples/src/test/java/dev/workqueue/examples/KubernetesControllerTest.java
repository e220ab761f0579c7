package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Runs the example against its embedded API server: real HTTP on the loopback address, real
 * informer watches, the toolkit's controller threads. Everything asynchronous is awaited
 * with Awaitility on the state of the API server.
 */
class KubernetesControllerTest {
  private static final String NS = KubernetesController.NAMESPACE;

  @Test
  void createUpdateDelete_converge_failuresAreRetried_andCloseLeavesNoToolkitThread()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    KubernetesController example = KubernetesController.start(
        KubernetesController.Options.parse("--objects", "3", "--fail", "app-2,app-3"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      KubernetesClient k = example.client();
      for (int i = 1; i <= 3; i++) {
        k.configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("app-" + i).endMetadata()
            .addToData("greeting", "hello " + i).build()).create();
      }
      await().atMost(30, SECONDS).until(() -> example.derived().equals(Map.of(
          "app-1-derived", expected("app-1", Map.of("greeting", "hello 1")),
          "app-2-derived", expected("app-2", Map.of("greeting", "hello 2")),
          "app-3-derived", expected("app-3", Map.of("greeting", "hello 3")))));

      // The injected failures were retried through the rate limiter, and nothing else failed.
      assertEquals(2, count(example, ControllerMetricsProvider.RECONCILE_ERRORS));
      long retries = count(example, MetricsProvider.RETRIES);
      assertTrue(retries >= 2, "retries " + retries);

      k.configMaps().inNamespace(NS).withName("app-1")
          .edit(cm -> new ConfigMapBuilder(cm).addToData("colour", "blue").build());
      await().atMost(30, SECONDS).until(() -> expected("app-1",
          Map.of("greeting", "hello 1", "colour", "blue")).equals(example.derived().get("app-1-derived")));

      k.configMaps().inNamespace(NS).withName("app-3").delete();
      await().atMost(30, SECONDS).until(() -> !example.derived().containsKey("app-3-derived"));

      // Someone deletes a derived object: its event enqueues the source, which puts it back.
      k.configMaps().inNamespace(NS).withName("app-2-derived").delete();
      await().atMost(30, SECONDS).until(() -> example.derived().containsKey("app-2-derived"));

      await().atMost(30, SECONDS).until(example::converged);
      assertEquals(Set.of("app-1-derived", "app-2-derived"), example.derived().keySet());
      assertEquals(2, count(example, ControllerMetricsProvider.RECONCILE_ERRORS), "no other failure");
    } finally {
      example.close();
    }

    // close() stopped the controller, which joins its workers before returning.
    assertEquals(Set.of(), toolkitThreads("workqueue-worker-"));
    // The shared timer threads leave by themselves once idle (about a second).
    await().atMost(10, SECONDS).until(() -> toolkitThreads("workqueue-").isEmpty());

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("reconcile demo/app-2   failed (injected)"), out);
    assertTrue(out.contains("informer  DELETED  demo/app-3         -> enqueue demo/app-3"), out);
    assertTrue(out.contains("source gone: deleted app-3-derived"), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    for (String[] args : List.of(new String[] {"--objects", "0"}, new String[] {"--workers", "0"},
        new String[] {"--bogus"})) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> KubernetesController.Options.parse(args));
      assertTrue(e.getMessage().contains("usage: KubernetesController"), e.getMessage());
    }
    assertEquals(Set.of(), KubernetesController.Options.parse("--fail", "").failFirstAttempt());
    assertEquals(Set.of("a", "b"),
        KubernetesController.Options.parse("--fail", "a, b,a").failFirstAttempt());
  }

  /** What the reconciler must write for a source with {@code data}, computed independently. */
  private static Map<String, String> expected(String source, Map<String, String> data)
      throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    String keys = data.keySet().stream().sorted().collect(Collectors.joining(","));
    for (String key : data.keySet().stream().sorted().toList()) {
      sha.update((key + "=" + data.get(key) + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return Map.of("source", source, "keys", keys,
        "sha256", HexFormat.of().formatHex(sha.digest()).substring(0, 16));
  }

  private static Set<String> toolkitThreads(String prefix) {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
        .map(Thread::getName).filter(n -> n.startsWith(prefix)).collect(Collectors.toSet());
  }

  private static long count(KubernetesController example, String metric) {
    return example.metrics().count(KubernetesController.CONTROLLER_NAME, metric);
  }
}
