package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

/**
 * An API server a controller's test runs its replicas on, whichever it is: fabric8's mock
 * ({@link MockApiServer}: no install, starts in milliseconds) or a real kube-apiserver on its
 * own etcd ({@link RealApiServer}: resourceVersions, 410 Gone, RBAC, a restart). A test written
 * against this interface runs on both; what only one of them can show stays on that class.
 *
 * <p>Every client is the server's own: closed with it. Give each replica its own client, as
 * each replica of a real deployment has: a client shares its HTTP connections and informers'
 * threads. The clients' default namespace is {@code test}, which exists on both.
 *
 * <p>Implementations are thread-safe.
 */
public interface ApiServer extends AutoCloseable {
  /**
   * A new client with every right (the mock has no RBAC; on a real server, a member of {@code
   * system:masters}); closed with the server.
   *
   * @return the client
   */
  KubernetesClient newClient();

  /**
   * A new client each of whose requests first passes through {@code interceptor} (its {@code
   * before} can read or change the request): to record what a replica asks the server for.
   *
   * @param interceptor sees each request before it is sent, on the calling thread
   * @return the client
   */
  KubernetesClient newClient(Interceptor interceptor);

  /**
   * A new client whose requests fail (connection refused) while {@code partitioned} is set, as
   * a replica's would when the network cuts it off from the API server. Watches already open
   * stay open.
   *
   * @param partitioned read as each request is sent: set, the request fails
   * @return the client
   */
  default KubernetesClient newClient(AtomicBoolean partitioned) {
    return newClient(partitioned, false);
  }

  /**
   * As {@link #newClient(AtomicBoolean)}; with {@code hang}, a cut-off request is not refused
   * but hangs: it goes to a loopback port that accepts connections and never answers, as when
   * the network drops packets.
   *
   * @param partitioned read as each request is sent: set, the request fails or hangs
   * @param hang whether a cut-off request hangs (until the client's timeouts) rather than fail
   * @return the client
   */
  KubernetesClient newClient(AtomicBoolean partitioned, boolean hang);

  /**
   * A new client whose requests each wait {@code delayMillis.applyAsLong(request)} before they
   * are sent (on the calling thread; an interrupt ends the wait), as a slow network or a busy API
   * server would make them.
   *
   * @param delayMillis how long to hold each request, in milliseconds; 0 or less sends it at once
   * @return the client
   */
  KubernetesClient newClient(ToLongFunction<HttpRequest> delayMillis);

  /**
   * Creates {@code object} on the server through a client of the server's own, not a
   * replica's. An object without a namespace goes to the clients' default namespace, {@code
   * test}.
   *
   * @param object the object to create
   * @param <T> its type
   * @return the object as the server stored it (with its resourceVersion and uid)
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the server refuses it
   *     (409 if it exists already)
   */
  <T extends HasMetadata> T create(T object);

  /** Closes every client made here, then stops the server. */
  @Override
  void close();
}
