package dev.workqueue.examples;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpClient;
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
 * The Kubernetes examples' API server: fabric8's {@code kubernetes-server-mock} in CRUD mode
 * (objects are stored, listed and watched; a stale update is refused with 409), plain HTTP on
 * the loopback address at a free port, and the clients made for it, one per replica. Nothing to
 * install; it collects no garbage.
 */
final class EmbeddedApiServer implements AutoCloseable {
  private static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  private final KubernetesMockServer server;
  private final KubernetesClient admin;
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final Interceptor replicaRequests; // may be null

  EmbeddedApiServer() {
    this(null);
  }

  /**
   * A server whose replicas' clients (those of {@link #newClient()} and {@link
   * #newClient(AtomicBoolean)}, not the admin's) pass each request to {@code replicaRequests}
   * (may be null): a test records there what a replica asks the API server for.
   */
  EmbeddedApiServer(Interceptor replicaRequests) {
    this.replicaRequests = replicaRequests;
    MOCK_SERVER_LOG.setLevel(Level.WARNING); // a line per request otherwise
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new KubernetesCrudDispatcher(List.of()), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    admin = server.createClient();
    clients.add(admin);
  }

  /** The client of the example's own changes (not a replica's). */
  KubernetesClient admin() {
    return admin;
  }

  /** A new client of this server; closed with it. */
  synchronized KubernetesClient newClient() {
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> recorded(h)));
    clients.add(c);
    return c;
  }

  /**
   * A new client whose requests are refused while {@code cutOff} is set, as a replica's would be
   * when the network cuts it off from the API server; watches already open stay open.
   */
  synchronized KubernetesClient newClient(AtomicBoolean cutOff) {
    URI away = URI.create("http://127.0.0.1:1/cut-off"); // nothing listens on port 1
    Interceptor cut = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (cutOff.get()) {
          builder.uri(away);
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> recorded(h).addOrReplaceInterceptor("cut-off", cut)));
    clients.add(c);
    return c;
  }

  private HttpClient.Builder recorded(HttpClient.Builder h) {
    return replicaRequests == null ? h : h.addOrReplaceInterceptor("recorded", replicaRequests);
  }

  /**
   * Closes every client made here, then the server. The mock server waits at most 10 s for its
   * HTTP server to close and then throws; that has happened once on a loaded 2-core machine after
   * a run whose every check had passed, so it is logged here, not thrown: nothing the caller
   * asked for is lost by a server that is slow to let go of its connections.
   */
  @Override
  public synchronized void close() {
    clients.forEach(KubernetesClient::close);
    try {
      server.destroy();
    } catch (IllegalStateException e) { // "Unable to close MockWebServer" after its timeout
      MOCK_SERVER_LOG.log(Level.WARNING, "the embedded API server did not close in time", e);
    }
  }
}
