package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.examples.ConfigMapController.Replica;
import dev.workqueue.controller.Result;
import dev.workqueue.examples.RbacCheck.Access;
import dev.workqueue.kubernetes.KubernetesController;
import dev.workqueue.kubernetes.Sharding;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks {@code examples/deploy/rbac.yaml} against what the example operator really asks the
 * API server for: {@link ConfigMapController}'s two replicas run against the embedded mock API
 * server with every request of theirs recorded ({@link RecordedRequests}) through a leader's
 * gain, renewals, the reconciler's creates, updates and deletes, and a release on stop; then
 * each request must be granted to the ServiceAccount by the manifest ({@link RbacCheck}), and
 * each verb the manifest grants must have been used. A shard ring's members are checked against
 * the README's sharding row the same way.
 */
class RbacManifestTest {
  private static final Path MANIFEST = Path.of("deploy", "rbac.yaml");
  private static final String NS = ConfigMapController.NAMESPACE;
  private static final String ACCOUNT = "configmap-controller";
  private static final String COORDINATION = "coordination.k8s.io";

  @Test
  void everyRequestOfTheOperator_isGrantedByTheManifest_andEveryGrantIsUsed() throws Exception {
    RecordedRequests requests = new RecordedRequests();
    ConfigMapController example = ConfigMapController.start(
        ConfigMapController.Options.parse("--objects", "2", "--fail", ""),
        new PrintStream(OutputStream.nullOutputStream()), requests);
    try {
      ExampleChanges.createUpdateAndDelete(example, 20);
      KubernetesClient k = example.admin();

      // Renewals: the holder rewrites the Lease every retry period (500 ms here).
      Replica first = example.leader().orElseThrow();
      String renewed = lease(k).getMetadata().getResourceVersion();
      await().atMost(10, SECONDS).until(
          () -> !lease(k).getMetadata().getResourceVersion().equals(renewed));
      assertEquals(first.name(), lease(k).getSpec().getHolderIdentity());

      // A release on stop, and the other replica's take-over.
      first.controller().stop(Duration.ofSeconds(10));
      await().atMost(20, SECONDS).until(() -> example.leader().isPresent());
      assertNotEquals(first.name(), example.leader().orElseThrow().name());
    } finally {
      example.close();
    }

    SortedSet<Access> seen = requests.accesses();
    assertEquals(Set.of(), requests.notResources(), "requests RBAC does not map to a resource");
    assertTrue(seen.containsAll(List.of(
        new Access("list", "", "configmaps", NS), new Access("watch", "", "configmaps", NS),
        new Access("create", "", "configmaps", NS), new Access("update", "", "configmaps", NS),
        new Access("delete", "", "configmaps", NS),
        new Access("create", COORDINATION, "leases", NS),
        new Access("update", COORDINATION, "leases", NS),
        new Access("watch", COORDINATION, "leases", NS))), "the run did what it claims: " + seen);
    RbacCheck manifest = RbacCheck.load(MANIFEST, NS, ACCOUNT);
    manifest.assertGranted(seen);
    assertEquals(Set.of(), manifest.unused(seen), "granted but never used; seen: " + seen);
  }

  /**
   * The README's sharding row: two members of a ring agree on it, one leaves gracefully (its
   * Lease deleted), and what they asked of {@code leases} is exactly that row's verbs.
   */
  @Test
  void aShardRingsMembers_useTheLeaseVerbsTheReadmeLists() throws Exception {
    RecordedRequests requests = new RecordedRequests();
    List<KubernetesController<ConfigMap>> members = new ArrayList<>();
    try (EmbeddedApiServer api = new EmbeddedApiServer(requests)) {
      Map<String, List<String>> rings = new ConcurrentHashMap<>();
      for (String id : List.of("member-a", "member-b")) {
        KubernetesController<ConfigMap> c = KubernetesController
            .builder(api.newClient(), ConfigMap.class).name("rbac-" + id).inNamespace(NS)
            .sharding(Sharding.ring(NS, "rbac", id).withDurations(Duration.ofSeconds(2),
                Duration.ofMillis(1500), Duration.ofMillis(250))
                .withMembersListener(ring -> rings.put(id, ring)))
            .reconciler(request -> Result.success()).build();
        members.add(c);
        c.start();
      }
      List<String> both = List.of("member-a", "member-b");
      await().atMost(10, SECONDS).until(
          () -> both.equals(rings.get("member-a")) && both.equals(rings.get("member-b")));
      members.get(0).stop(Duration.ofSeconds(5)); // leaves the ring: deletes its Lease
      await().atMost(10, SECONDS).until(() -> List.of("member-b").equals(rings.get("member-b")));
      members.get(1).stop(Duration.ofSeconds(5));
    }

    assertEquals(Set.of(), requests.notResources());
    Set<String> leaseVerbs = new TreeSet<>();
    for (Access a : requests.accesses()) {
      assertEquals(NS, a.namespace(), a.toString());
      if (a.resource().equals("leases")) {
        leaseVerbs.add(a.verb());
      } else {
        assertEquals(new Access(a.verb(), "", "configmaps", NS), a, "the informer only");
      }
    }
    assertEquals(Set.of("list", "get", "create", "update", "delete"), leaseVerbs);
  }

  @Test
  void aRuleMissingFromTheManifest_failsNamingTheVerbAndResource(@TempDir Path dir)
      throws Exception {
    String full = Files.readString(MANIFEST);
    String withoutWatch = full.replace(
        "verbs: [\"get\", \"list\", \"watch\", \"create\", \"update\"]",
        "verbs: [\"get\", \"list\", \"create\", \"update\"]");
    assertNotEquals(full, withoutWatch, "the Lease rule is where this test expects it");
    Path broken = Files.writeString(dir.resolve("rbac.yaml"), withoutWatch);
    List<Access> leaderWatchesItsLease = List.of(new Access("get", COORDINATION, "leases", NS),
        new Access("list", COORDINATION, "leases", NS),
        new Access("watch", COORDINATION, "leases", NS));

    RbacCheck.load(MANIFEST, NS, ACCOUNT).assertGranted(leaderWatchesItsLease);
    AssertionError e = assertThrows(AssertionError.class,
        () -> RbacCheck.load(broken, NS, ACCOUNT).assertGranted(leaderWatchesItsLease));
    assertEquals(broken + " does not grant the ServiceAccount demo/configmap-controller what"
        + " the controller did:\n  watch leases.coordination.k8s.io in demo", e.getMessage());
  }

  @Test
  void theGrantsAreTheBoundRolesOnly_inTheirNamespace() throws Exception {
    Access list = new Access("list", "", "configmaps", NS);
    assertEquals(Set.of(list), RbacCheck.load(MANIFEST, NS, "someone-else").refused(Set.of(list)));
    Access elsewhere = new Access("list", "", "configmaps", "other");
    assertEquals(Set.of(elsewhere),
        RbacCheck.load(MANIFEST, NS, ACCOUNT).refused(Set.of(list, elsewhere)));
  }

  @Test
  void requests_mapToVerbGroupAndResource_asTheApiServerDoes() {
    String base = "http://127.0.0.1:1";
    assertEquals(new Access("get", "", "configmaps", NS),
        RbacCheck.access("GET", URI.create(base + "/api/v1/namespaces/demo/configmaps/a")));
    assertEquals(new Access("list", "", "configmaps", NS), RbacCheck.access("GET",
        URI.create(base + "/api/v1/namespaces/demo/configmaps?labelSelector=x%3Dy")));
    assertEquals(new Access("watch", COORDINATION, "leases", NS), RbacCheck.access("GET",
        URI.create(base + "/apis/coordination.k8s.io/v1/namespaces/demo/leases"
            + "?fieldSelector=metadata.name%3Dx&allowWatchBookmarks=true&watch=true")));
    assertEquals(new Access("create", COORDINATION, "leases", NS), RbacCheck.access("POST",
        URI.create(base + "/apis/coordination.k8s.io/v1/namespaces/demo/leases")));
    assertEquals(new Access("update", "apps", "deployments/status", NS), RbacCheck.access("PUT",
        URI.create(base + "/apis/apps/v1/namespaces/demo/deployments/d/status")));
    assertEquals(new Access("patch", "", "nodes", ""),
        RbacCheck.access("PATCH", URI.create(base + "/api/v1/nodes/n")));
    assertEquals(new Access("get", "", "namespaces", ""),
        RbacCheck.access("GET", URI.create(base + "/api/v1/namespaces/demo")));
    assertEquals(new Access("deletecollection", "", "secrets", NS),
        RbacCheck.access("DELETE", URI.create(base + "/api/v1/namespaces/demo/secrets")));
    assertThrows(IllegalArgumentException.class,
        () -> RbacCheck.access("GET", URI.create(base + "/version")));
  }

  private static Lease lease(KubernetesClient k) {
    return k.leases().inNamespace(NS).withName(ConfigMapController.NAME).get();
  }
}
