package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's mock API server in CRUD mode (objects are stored, listed and watched), on loopback
 * at a free port, and the clients made for it: each replica of a test gets its own.
 */
final class MockApiServer implements AutoCloseable {
  static {
    Logger.getLogger("io.fabric8.mockwebserver").setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final List<KubernetesClient> clients = new ArrayList<>();

  MockApiServer() {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(List.of()), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
  }

  /** A new client of this server; closed with it. */
  synchronized KubernetesClient newClient() {
    KubernetesClient c = server.createClient();
    clients.add(c);
    return c;
  }

  /**
   * A new client whose requests fail (connection refused) while {@code partitioned} is set, as
   * a replica's would when the network cuts it off from the API server. Watches already open
   * stay open.
   */
  synchronized KubernetesClient newClient(AtomicBoolean partitioned) {
    Interceptor cut = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (partitioned.get()) {
          builder.uri(URI.create("http://127.0.0.1:1/partitioned"));
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("partition", cut)));
    clients.add(c);
    return c;
  }

  @Override
  public synchronized void close() {
    clients.forEach(KubernetesClient::close);
    server.destroy();
  }
}
