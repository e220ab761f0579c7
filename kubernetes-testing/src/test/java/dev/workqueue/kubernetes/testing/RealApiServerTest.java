package dev.workqueue.kubernetes.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real server's life: it serves, keeps its objects across an API server restart (etcd
 * kept), and close leaves nothing listening. Tagged {@code
 * real-apiserver}: off unless {@code workqueue.apiservers} names {@code real}.
 */
@Tag("real-apiserver")
@Timeout(120)
class RealApiServerTest {
  @BeforeAll
  static void realServerOnly() {
    assumeTrue(ApiServerChoice.real(), ApiServerChoice.REAL_OFF);
    RealApiServer.provision(); // outside the tests' timeouts: minutes the first time
  }

  @Test
  void itServes_keepsItsObjectsAcrossARestart_andClosingLeavesNothingListening()
      throws Exception {
    RealApiServer server = RealApiServer.builder().start();
    int port = server.url().getPort();
    try {
      KubernetesClient client = server.newClient();
      client.configMaps().resource(new ConfigMapBuilder().withNewMetadata().withName("kept")
          .endMetadata().withData(Map.of("k", "v")).build()).create();

      server.stopApiServer();
      assertTrue(refused(port), "stopped: nothing listens on " + port);
      server.startApiServer();
      assertEquals("v", client.configMaps().withName("kept").get().getData().get("k"),
          "etcd kept the object");
    } finally {
      server.close();
    }
    assertTrue(refused(port), "closed: kube-apiserver is gone");
  }

  private static boolean refused(int port) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      return false;
    } catch (ConnectException e) {
      return true;
    }
  }
}
