package dev.workqueue.examples;

import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.net.URI;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * The Kubernetes examples' API server: the toolkit's test fixture {@link MockApiServer}
 * (fabric8's {@code kubernetes-server-mock} in CRUD mode: objects are stored, listed and
 * watched; a stale update is refused with 409; plain HTTP on the loopback address at a free
 * port; its request log quiet), with an admin client for the example's own changes and the
 * replicas' clients, whose requests a test may record. Nothing to install; it collects no
 * garbage. A test may put the examples on another {@link ApiServer} (a real kube-apiserver with
 * RBAC, its replicas on a ServiceAccount's token).
 */
final class EmbeddedApiServer implements AutoCloseable {
  private static final URI AWAY = URI.create("http://127.0.0.1:1/cut-off"); // nothing listens

  private final ApiServer server;
  private final KubernetesClient admin;
  private final Interceptor replicaRequests; // may be null
  /** A replica's client, its requests through the interceptor it is given. */
  private final Function<Interceptor, KubernetesClient> replicaClients;

  EmbeddedApiServer() {
    this((Interceptor) null);
  }

  /**
   * A server whose replicas' clients (those of {@link #newClient()} and {@link
   * #newClient(AtomicBoolean)}, not the admin's) pass each request to {@code replicaRequests}
   * (may be null): a test records there what a replica asks the API server for.
   */
  EmbeddedApiServer(Interceptor replicaRequests) {
    MockApiServer mock = new MockApiServer();
    this.server = mock;
    this.admin = mock.newClient();
    this.replicaRequests = replicaRequests;
    this.replicaClients = mock::newClient;
  }

  /**
   * The examples on {@code server}: the example's own changes through {@code admin}, each
   * replica on a client of {@code replicaClients} (given the interceptor its requests pass
   * through, which records them into {@code replicaRequests} if that is not null). Closing this
   * closes {@code server}.
   */
  EmbeddedApiServer(ApiServer server, KubernetesClient admin,
      Function<Interceptor, KubernetesClient> replicaClients, Interceptor replicaRequests) {
    this.server = server;
    this.admin = admin;
    this.replicaRequests = replicaRequests;
    this.replicaClients = replicaClients;
  }

  /** The client of the example's own changes (not a replica's). */
  KubernetesClient admin() {
    return admin;
  }

  /** A new client of this server; closed with it. */
  KubernetesClient newClient() {
    return replicaClients.apply(replicaRequests == null ? new Interceptor() {} : replicaRequests);
  }

  /**
   * A new client whose requests are refused while {@code cutOff} is set, as a replica's would be
   * when the network cuts it off from the API server; watches already open stay open. Unlike
   * the fixture's own {@link MockApiServer#newClient(AtomicBoolean)}, its requests are recorded
   * (cut off or not) as those of {@link #newClient()} are.
   */
  KubernetesClient newClient(AtomicBoolean cutOff) {
    Interceptor recordedThenCut = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (replicaRequests != null) {
          replicaRequests.before(builder, request, tags);
        }
        if (cutOff.get()) {
          builder.uri(AWAY);
        }
      }
    };
    return replicaClients.apply(recordedThenCut);
  }

  /**
   * Closes every client made here, then the server (a server slow to close is logged by the
   * fixture, not thrown).
   */
  @Override
  public void close() {
    server.close();
  }
}
