package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/**
 * What the leader-election tests will rely on: the mock API server in CRUD mode refuses an
 * update of a Lease made from a stale resourceVersion with 409 Conflict, as a real API server
 * does, so two replicas cannot both win one Lease.
 */
class MockServerConflictTest {

  @Test
  void creatingALeaseThatExists_isAConflict() {
    try (MockApiServer server = new MockApiServer()) {
      KubernetesClient a = server.newClient();
      KubernetesClient b = server.newClient();
      a.leases().inNamespace("ns").resource(lease("a")).create();
      KubernetesClientException e = assertThrows(KubernetesClientException.class,
          () -> b.leases().inNamespace("ns").resource(lease("b")).create());
      assertEquals(409, e.getCode());
      assertEquals("a",
          a.leases().inNamespace("ns").withName("lock").get().getSpec().getHolderIdentity());
    }
  }

  private static Lease lease(String holder) {
    return new LeaseBuilder().withNewMetadata().withName("lock").withNamespace("ns")
        .endMetadata().withNewSpec().withHolderIdentity(holder).endSpec().build();
  }

  @Test
  void aLeaseUpdateFromAStaleResourceVersion_isAConflict() {
    try (MockApiServer server = new MockApiServer()) {
      KubernetesClient a = server.newClient();
      KubernetesClient b = server.newClient();
      Lease created = a.leases().inNamespace("ns").resource(new LeaseBuilder().withNewMetadata()
          .withName("lock").withNamespace("ns").endMetadata().withNewSpec()
          .withHolderIdentity("a").endSpec().build()).create();

      Lease seenByB = b.leases().inNamespace("ns").withName("lock").get();
      created.getSpec().setHolderIdentity("a-renewed");
      a.leases().inNamespace("ns").resource(created).update(); // a wins the race

      seenByB.getSpec().setHolderIdentity("b");
      KubernetesClientException e = assertThrows(KubernetesClientException.class,
          () -> b.leases().inNamespace("ns").resource(seenByB).update());
      assertEquals(409, e.getCode());
      assertEquals("a-renewed",
          a.leases().inNamespace("ns").withName("lock").get().getSpec().getHolderIdentity());
    }
  }
}
