package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.examples.ConfigMapController.Replica;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Runs the example's two replicas against its embedded API server: real HTTP on loopback, real
 * informers and Lease. Everything asynchronous is awaited with Awaitility on the API server's
 * state or the replicas' leadership.
 */
class ConfigMapControllerTest {
  private static final String NS = ConfigMapController.NAMESPACE;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void converges_retriesWithTheControllersBackOff_failsOver_andLeavesNoToolkitThread()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    String firstLeader;
    ConfigMapController example = ConfigMapController.start(
        ConfigMapController.Options.parse("--objects", "3", "--fail", "app-2,app-3",
            "--health-port", "0"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      KubernetesClient k = example.admin();
      for (int i = 1; i <= 3; i++) {
        k.configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("app-" + i).endMetadata()
            .addToData("greeting", "hello " + i).build()).create();
      }
      await().atMost(30, SECONDS).until(() -> example.derived().equals(Map.of(
          "app-1-derived", expected("app-1", Map.of("greeting", "hello 1")),
          "app-2-derived", expected("app-2", Map.of("greeting", "hello 2")),
          "app-3-derived", expected("app-3", Map.of("greeting", "hello 3")))));
      Replica first = example.leader().orElseThrow();
      firstLeader = first.name();
      assertEquals(1, example.replicas().stream().filter(r -> r.controller().isLeading())
          .count(), "one replica leads");

      // Each replica's probes: both live and ready, the one leading and the one standing by.
      for (Replica r : example.replicas()) {
        for (String path : List.of("/healthz", "/readyz")) {
          HttpResponse<String> probe = http.send(
              HttpRequest.newBuilder(example.probeUri(r.name(), path)).build(),
              HttpResponse.BodyHandlers.ofString());
          assertEquals(200, probe.statusCode(), r.name() + path + ": " + probe.body());
          assertEquals("[+]configmaps ok\n" + path.substring(1) + " check passed\n",
              probe.body(), "leading or standing by: " + r.name());
        }
      }

      // Someone deletes a derived object: its owner is enqueued and puts it back.
      k.configMaps().inNamespace(NS).withName("app-2-derived").delete();
      await().atMost(30, SECONDS).until(() -> example.derived().containsKey("app-2-derived"));

      // The leader stops: it releases the Lease and the other replica takes over.
      first.controller().stop(Duration.ofSeconds(10));
      await().atMost(30, SECONDS).until(() -> example.leader().isPresent());
      Replica second = example.leader().orElseThrow();
      assertNotEquals(first.name(), second.name());
      k.configMaps().inNamespace(NS).withName("app-1")
          .edit(cm -> new ConfigMapBuilder(cm).addToData("colour", "blue").build());
      k.configMaps().inNamespace(NS).withName("app-3").delete();
      await().atMost(30, SECONDS).until(() -> example.derived().equals(Map.of(
          "app-1-derived", expected("app-1", Map.of("greeting", "hello 1", "colour", "blue")),
          "app-2-derived", expected("app-2", Map.of("greeting", "hello 2")))));
      assertTrue(second.metrics().count("configmaps",
          "controller_runtime_reconcile_total{result=success}") > 0, "the new leader worked");
      assertEquals(2, first.metrics().count("configmaps",
          "controller_runtime_reconcile_errors_total"), "the two injected failures, no other");
    } finally {
      example.close();
    }
    await().atMost(10, SECONDS).until(() -> ToolkitThreads.alive().isEmpty());

    String out = bytes.toString(StandardCharsets.UTF_8);
    // The back-off is the controller's, printed by the limiter it applies.
    assertTrue(out.contains("controller: demo/app-2 failed; requeued with back-off 5 ms (attempt 1)"),
        out);
    assertTrue(out.contains("source gone: deleted app-3-derived"), out);
    assertTrue(out.contains("the Lease is held by " + firstLeader), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    for (String[] args : List.of(new String[] {"--objects", "0"}, new String[] {"--workers", "0"},
        new String[] {"--health-port", "-2"}, new String[] {"--bogus"})) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ConfigMapController.Options.parse(args));
      assertTrue(e.getMessage().contains("usage: ConfigMapController"), e.getMessage());
    }
    assertEquals(Set.of(), ConfigMapController.Options.parse("--fail", "").failFirstAttempt());
    assertEquals(Set.of("a", "b"),
        ConfigMapController.Options.parse("--fail", "a, b,a").failFirstAttempt());
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
}
