package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.WorkQueue;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class OwnerReferencesTest {
  private static final String NS = "team-a";

  @Test
  void controllerOf_namesTheOwner_asController_blockingItsDeletion() {
    Deployment web = new DeploymentBuilder().withNewMetadata().withName("web").withNamespace(NS)
        .withUid("uid-1").endMetadata().build();
    OwnerReference ref = OwnerReferences.controllerOf(web);
    assertEquals("apps/v1", ref.getApiVersion());
    assertEquals("Deployment", ref.getKind());
    assertEquals("web", ref.getName());
    assertEquals("uid-1", ref.getUid());
    assertEquals(Boolean.TRUE, ref.getController());
    assertEquals(Boolean.TRUE, ref.getBlockOwnerDeletion());
  }

  @Test
  void anOwnedSecret_isMappedBackToItsOwnersKey_byTheOwnerHandler() throws Exception {
    try (MockApiServer server = new MockApiServer()) {
      KubernetesClient client = server.newClient();
      WorkQueue<ObjectKey> queue = WorkQueue.create();
      SharedIndexInformer<Secret> informer = client.secrets().inNamespace(NS)
          .inform(EnqueueHandler.forOwner(ConfigMap.class, queue::add));
      try {
        ConfigMap owner = client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder()
            .withNewMetadata().withName("source").withNamespace(NS).endMetadata().build())
            .create();
        Secret copy = new SecretBuilder().withNewMetadata().withName("copy").withNamespace(NS)
            .withOwnerReferences(OwnerReferences.controllerOf(owner)).endMetadata().build();
        client.secrets().inNamespace(NS).resource(copy).create();

        Optional<ObjectKey> key = queue.poll(Duration.ofSeconds(30));
        assertEquals(Optional.of(ObjectKey.of(NS, "source")), key);
      } finally {
        informer.close();
        queue.shutDown();
      }
    }
  }

  @Test
  void anOwnerWithoutUidOrKind_isRefused_sayingWhatIsMissing() {
    ConfigMap local = new ConfigMapBuilder().withNewMetadata().withName("source").endMetadata()
        .build();
    String noUid = assertThrows(IllegalArgumentException.class,
        () -> OwnerReferences.controllerOf(local)).getMessage();
    assertTrue(noUid.startsWith("owner must have a uid"), noUid);
    assertTrue(noUid.endsWith(": ConfigMap source"), noUid);

    ConfigMap noKind = new ConfigMapBuilder(local).editMetadata().withUid("u").endMetadata()
        .build();
    noKind.setKind(null);
    assertEquals("owner must have a kind: ConfigMap source", assertThrows(
        IllegalArgumentException.class, () -> OwnerReferences.controllerOf(noKind))
        .getMessage());

    ConfigMap noName = new ConfigMapBuilder().withNewMetadata().withUid("u").endMetadata()
        .build();
    assertEquals("owner must have a name: ConfigMap", assertThrows(
        IllegalArgumentException.class, () -> OwnerReferences.controllerOf(noName))
        .getMessage());
    assertEquals("owner must not be null", assertThrows(NullPointerException.class,
        () -> OwnerReferences.controllerOf(null)).getMessage());
  }
}
