package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * fabric8's mock Kubernetes API server ({@code kubernetes-server-mock}) set up for a
 * controller's tests: in CRUD mode (objects are stored, listed, watched, updated and deleted),
 * plain HTTP on the loopback address at a free port, quiet, and the clients made for it, one per
 * replica, each closed with the server.
 *
 * <pre>{@code
 * try (MockApiServer server = new MockApiServer()) {
 *   server.create(configMap);                        // the objects the test starts from
 *   KubernetesClient replica = server.newClient();   // one client per replica
 *   ...
 * }
 * }</pre>
 *
 * <p><b>Faults.</b> A test gives a replica a client that fails as a network or an API server
 * does: {@link #newClient(AtomicBoolean)} refuses (or, with {@code hang}, never answers) its new
 * requests while a flag is set; {@link #newClient(ApiServerLink, Predicate)} goes through a
 * {@linkplain #newLink() link} the test takes down (open watches end too) and answers 403
 * Forbidden to the requests the predicate picks; {@link #newClient(ToLongFunction)} delays
 * chosen requests. {@link #newClient(Interceptor)} lets a test see every request of a client.
 *
 * <p><b>Quiet.</b> The mock server logs a line per request at INFO through
 * {@code java.util.logging}; this class sets its logger ({@code io.fabric8.mockwebserver}) to
 * WARNING and keeps a strong reference to it, since the logging framework holds loggers weakly
 * and a collected logger would come back at INFO.
 *
 * <p><b>What the mock is not.</b> It is no API server, and a test that passes here may still
 * fail on a real one:
 *
 * <ul>
 *   <li>A watch sends an ADDED event for every current object on connect and ignores the
 *       {@code resourceVersion} it is opened from; it never answers 410 Gone, so an informer's
 *       relist after an expired resourceVersion is never exercised.
 *   <li>No RBAC, admission or validation: every request of every client is allowed, save those
 *       a test marks forbidden ({@link #newClient(ApiServerLink, Predicate)}).
 *   <li>No controllers behind it: no garbage collection of owned objects, no status, no
 *       generation bumps beyond what the mock's CRUD store does itself.
 * </ul>
 *
 * It does refuse a stale-resourceVersion update and a second create with 409 Conflict, as a real
 * API server does, which leader election relies on. A test that must see what the mock cannot
 * runs on {@link RealApiServer}; a test written against {@link ApiServer} runs on both.
 *
 * <p>Thread-safe. {@link #close()} closes every client and link made here, then the server.
 */
public final class MockApiServer implements ApiServer {
  /** Held: JUL keeps loggers weakly, and a collected one would forget its level. */
  private static final Logger MOCK_SERVER_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_SERVER_LOG.setLevel(Level.WARNING); // a line per request otherwise
  }

  private static final Logger LOG = Logger.getLogger(MockApiServer.class.getName());

  private final KubernetesMockServer server;
  private final List<KubernetesClient> clients = new ArrayList<>(); // guarded by this
  private final List<ApiServerLink> links = new ArrayList<>(); // guarded by this
  private KubernetesClient seeder; // guarded by this; made on the first create
  private BlackHole blackHole; // guarded by this; made on the first hanging client

  /** Starts a server, empty, on the loopback address at a free port. */
  public MockApiServer() {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new ClosingApartDispatcher(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
  }

  /**
   * The port the server listens on, on the loopback address.
   *
   * @return the server's port
   */
  public int port() {
    return server.getPort();
  }

  /**
   * How many requests the server has received so far, from every client (a watch counts once,
   * when it opens).
   *
   * @return the number of requests received
   */
  public int requestCount() {
    return server.getRequestCount();
  }

  /**
   * Creates {@code object} on the server, as the state a test starts from (or a change it makes
   * meanwhile), through a client of the server's own, not a replica's. An object without a
   * namespace goes to the clients' default namespace, {@code test}.
   *
   * @param object the object to create
   * @param <T> its type
   * @return the object as the server stored it (with its resourceVersion and uid)
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the server refuses it
   *     (409 if it exists already)
   */
  @Override
  public <T extends HasMetadata> T create(T object) {
    Objects.requireNonNull(object, "object");
    return seeder().resource(object).create();
  }

  /**
   * Creates each of {@code objects} on the server, in order, as {@link #create} does.
   *
   * @param objects the objects to create
   * @throws io.fabric8.kubernetes.client.KubernetesClientException if the server refuses one
   *     (the ones before it stay created)
   */
  public void seed(HasMetadata... objects) {
    for (HasMetadata object : objects) {
      create(object);
    }
  }

  private synchronized KubernetesClient seeder() {
    if (seeder == null) {
      seeder = newClient();
    }
    return seeder;
  }

  /**
   * A new client of this server, with the mock's defaults (namespace {@code test}); closed with
   * the server. Give each replica of a test its own: a client shares its HTTP connections and
   * informers' threads.
   *
   * @return the client
   */
  @Override
  public synchronized KubernetesClient newClient() {
    KubernetesClient c = server.createClient();
    clients.add(c);
    return c;
  }

  /**
   * A new client each of whose requests first passes through {@code interceptor} (its {@code
   * before} can read or change the request): to record what a replica asks the server for.
   * Closed with the server.
   *
   * @param interceptor sees each request before it is sent, on the calling thread
   * @return the client
   */
  @Override
  public synchronized KubernetesClient newClient(Interceptor interceptor) {
    Objects.requireNonNull(interceptor, "interceptor");
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("test-interceptor", interceptor)));
    clients.add(c);
    return c;
  }

  /**
   * A new link to this server, which a test takes down and brings back; closed with it.
   *
   * @return the link, up
   */
  public synchronized ApiServerLink newLink() {
    ApiServerLink link = new ApiServerLink(server.getPort());
    links.add(link);
    return link;
  }

  /**
   * A new client whose requests go through {@code link}, and whose requests that {@code
   * forbidden} accepts (at the time) get 403 Forbidden, as from an RBAC role that does not grant
   * them: a list fails, a watch cannot open. Closed with the server.
   *
   * @param link a link of this server ({@link #newLink()})
   * @param forbidden picks the requests to refuse, asked on the calling thread as each is sent
   * @return the client
   */
  public synchronized KubernetesClient newClient(ApiServerLink link,
      Predicate<HttpRequest> forbidden) {
    Objects.requireNonNull(link, "link");
    Objects.requireNonNull(forbidden, "forbidden");
    Interceptor through = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        URI u = request.uri();
        builder.uri(URI.create(u.getScheme() + "://" + u.getHost() + ":" + link.port()
            + u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery())));
        if (forbidden.test(request)) {
          builder.setHeader(ClosingApartDispatcher.FORBIDDEN, "true");
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("link", through)));
    clients.add(c);
    return c;
  }

  /**
   * Whether {@code request} lists (not watches) objects whose plural name is {@code plural}: for
   * the predicates and delays of the fault clients.
   *
   * @param request a request
   * @param plural the resource's plural name, as in its path ({@code "secrets"})
   * @return whether it is a list of that resource
   */
  public static boolean isList(HttpRequest request, String plural) {
    String query = request.uri().getRawQuery();
    return request.method().equals("GET") && request.uri().getPath().endsWith("/" + plural)
        && (query == null || !query.contains("watch=true"));
  }

  /**
   * A new client whose requests fail (connection refused) while {@code partitioned} is set, as
   * a replica's would when the network cuts it off from the API server. Watches already open
   * stay open (an {@link ApiServerLink} ends them too). Closed with the server.
   *
   * @param partitioned read as each request is sent: set, the request fails
   * @return the client
   */
  @Override
  public synchronized KubernetesClient newClient(AtomicBoolean partitioned) {
    return newClient(partitioned, false);
  }

  /**
   * As {@link #newClient(AtomicBoolean)}; with {@code hang}, a cut-off request is not refused
   * but hangs: it goes to a loopback port that accepts connections and never answers, as when
   * the network drops packets. Closed with the server.
   *
   * @param partitioned read as each request is sent: set, the request fails or hangs
   * @param hang whether a cut-off request hangs (until the client's timeouts) rather than fail
   * @return the client
   */
  @Override
  public synchronized KubernetesClient newClient(AtomicBoolean partitioned, boolean hang) {
    Objects.requireNonNull(partitioned, "partitioned");
    if (hang && blackHole == null) {
      blackHole = new BlackHole();
    }
    Interceptor cut = FaultInterceptors.partition(partitioned,
        hang ? blackHole.uri() : FaultInterceptors.REFUSED);
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("partition", cut)));
    clients.add(c);
    return c;
  }

  /**
   * A new client whose requests each wait {@code delayMillis.applyAsLong(request)} before they
   * are sent (on the calling thread; an interrupt ends the wait), as a slow network or a busy API
   * server would make them: to slow a replica's Lease calls and nothing else. Closed with the
   * server.
   *
   * @param delayMillis how long to hold each request, in milliseconds; 0 or less sends it at once
   * @return the client
   */
  @Override
  public synchronized KubernetesClient newClient(ToLongFunction<HttpRequest> delayMillis) {
    Interceptor slow = FaultInterceptors.delay(delayMillis);
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("slow", slow)));
    clients.add(c);
    return c;
  }

  /**
   * Whether {@code request} reads, writes or watches a Lease: for the delays and predicates of
   * the fault clients.
   *
   * @param request a request
   * @return whether it is about a Lease
   */
  public static boolean isLease(HttpRequest request) {
    return request.uri().getPath().contains("/leases");
  }

  /**
   * Closes every client and link made here, then the server. The mock server waits at most
   * 10 s for its HTTP server to let go of its connections and then throws; that is logged here,
   * not thrown, since nothing the test asked for is lost by a server slow to close.
   */
  @Override
  public synchronized void close() {
    clients.forEach(KubernetesClient::close);
    links.forEach(ApiServerLink::close);
    try {
      server.destroy();
    } catch (IllegalStateException e) { // "Unable to close MockWebServer" after its timeout
      LOG.log(Level.WARNING, "the mock API server did not close in time", e);
    }
    if (blackHole != null) {
      blackHole.close();
    }
  }
}
