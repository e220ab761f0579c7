package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.workqueue.examples.ConfigMapController.Replica;
import dev.workqueue.kubernetes.testing.ApiServerChoice;
import dev.workqueue.kubernetes.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code examples/deploy/rbac.yaml} against a real kube-apiserver with {@code
 * --authorization-mode=RBAC}: the manifest applied, {@link ConfigMapController}'s replicas on
 * its ServiceAccount's token, through the same run as {@link RbacManifestTest} (creates, an
 * update, a delete, renewals, a release and a take-over). The API server's own RBAC judges: no
 * request may be refused (403). With one rule taken out of the manifest, the refused request is
 * named. Tagged {@code real-apiserver}: off unless {@code workqueue.apiservers} names {@code
 * real} ({@code -Preal-apiserver}).
 */
@Tag("real-apiserver")
@Timeout(180)
class RealApiServerRbacTest {
  private static final Path MANIFEST = Path.of("deploy", "rbac.yaml");
  private static final String NS = ConfigMapController.NAMESPACE;
  private static final String ACCOUNT = "configmap-controller";

  @BeforeAll
  static void realServerOnly() {
    assumeTrue(ApiServerChoice.real(), ApiServerChoice.REAL_OFF);
    RealApiServer.provision(); // outside the tests' timeouts: minutes the first time
  }

  @Test
  void theManifest_grantsEverythingTheOperatorAsksOfARealServer() throws Exception {
    assertNothingRefused(runOperator(Files.readString(MANIFEST)));
  }

  @Test
  void aRuleMissingFromTheManifest_isRefusedByTheRealServer_namingTheVerbAndResource()
      throws Exception {
    String full = Files.readString(MANIFEST);
    String withoutWatch = full.replace(
        "verbs: [\"get\", \"list\", \"watch\", \"create\", \"update\"]",
        "verbs: [\"get\", \"list\", \"create\", \"update\"]");
    assertNotEquals(full, withoutWatch, "the Lease rule is where this test expects it");

    Set<String> refused = runOperator(withoutWatch);
    AssertionError e = assertThrows(AssertionError.class, () -> assertNothingRefused(refused));
    assertEquals("the API server refused the ServiceAccount demo/configmap-controller:\n"
        + "  watch leases.coordination.k8s.io in demo", e.getMessage());
  }

  private static void assertNothingRefused(Set<String> refused) {
    if (!refused.isEmpty()) {
      throw new AssertionError("the API server refused the ServiceAccount " + NS + "/" + ACCOUNT
          + ":\n  " + String.join("\n  ", refused));
    }
  }

  /**
   * Applies {@code manifest} on a new RBAC server, runs the operator on its ServiceAccount's
   * token through RbacManifestTest's run, and returns the requests the server refused (403).
   */
  private static Set<String> runOperator(String manifest) throws Exception {
    try (RealApiServer server = RealApiServer.builder()
        .authorization(RealApiServer.Authorization.RBAC).start()) {
      KubernetesClient admin = server.newClient();
      admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(NS)
          .endMetadata().build()).create();
      for (HasMetadata o : admin.load(new ByteArrayInputStream(
          manifest.getBytes(StandardCharsets.UTF_8))).items()) {
        admin.resource(o).create();
      }
      String token = admin.serviceAccounts().inNamespace(NS).withName(ACCOUNT)
          .tokenRequest(new TokenRequestBuilder().withNewSpec().withExpirationSeconds(3600L)
              .endSpec().build()).getStatus().getToken();
      RefusedRequests refused = new RefusedRequests();
      EmbeddedApiServer api = new EmbeddedApiServer(server, admin,
          interceptor -> server.newClient(token, interceptor), refused);
      ConfigMapController example = ConfigMapController.start(
          ConfigMapController.Options.parse("--objects", "2", "--fail", ""),
          new PrintStream(OutputStream.nullOutputStream()), api);
      try {
        exercise(example);
      } finally {
        example.close();
      }
      return refused.seen;
    }
  }

  /** Creates, an update, a delete, a renewal, a release and a take-over. */
  private static void exercise(ConfigMapController example) {
    ExampleChanges.createUpdateAndDelete(example, 30);
    KubernetesClient k = example.admin();
    String renewed = lease(k).getMetadata().getResourceVersion();
    await().atMost(10, SECONDS).until(
        () -> !lease(k).getMetadata().getResourceVersion().equals(renewed));

    Replica first = example.leader().orElseThrow();
    try {
      first.controller().stop(Duration.ofSeconds(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    await().atMost(30, SECONDS).until(() -> example.leader().isPresent());
    assertNotEquals(first.name(), example.leader().orElseThrow().name());
  }

  private static io.fabric8.kubernetes.api.model.coordination.v1.Lease lease(KubernetesClient k) {
    return k.leases().inNamespace(NS).withName(ConfigMapController.NAME).get();
  }

  /** Each request a client sent that the API server answered 403, as RBAC names it. */
  private static final class RefusedRequests implements Interceptor {
    final SortedSet<String> seen = new ConcurrentSkipListSet<>();

    @Override
    public void after(HttpRequest request, HttpResponse<?> response,
        AsyncBody.Consumer<List<ByteBuffer>> consumer) {
      record(request, response);
    }

    @Override
    public CompletableFuture<Boolean> afterFailure(BasicBuilder builder,
        HttpResponse<?> response, RequestTags tags) {
      record(response.request(), response);
      return CompletableFuture.completedFuture(false);
    }

    private void record(HttpRequest request, HttpResponse<?> response) {
      if (response.code() == 403) {
        String what;
        try {
          what = RbacCheck.access(request.method(), request.uri()).toString();
        } catch (IllegalArgumentException e) { // not a resource: name the path
          what = request.method() + " " + request.uri().getPath();
        }
        seen.add(what);
      }
    }
  }
}
