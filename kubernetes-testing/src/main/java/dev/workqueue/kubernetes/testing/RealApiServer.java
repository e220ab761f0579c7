package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;

/**
 * A real kube-apiserver (v1.20.2) on its own etcd, both on 127.0.0.1 at free ports, in a
 * temporary directory of their own with a self-signed certificate and a token file: what
 * fabric8's mock ({@link MockApiServer}) cannot show a controller's test — watches that resume
 * from a resourceVersion (and a delete made while a replica was away), 410 Gone and the relist
 * after it, RBAC, an API server restart with its storage kept, real Lease timing.
 *
 * <pre>{@code
 * try (RealApiServer server = RealApiServer.builder().start()) {   // ~6 s, or a clear error
 *   KubernetesClient replica = server.newClient();                 // one client per replica
 *   ...
 *   server.stopApiServer();                                        // etcd keeps the objects
 *   server.startApiServer();
 * }
 * }</pre>
 *
 * <p><b>Provisioning.</b> The binary comes from the script shipped beside this class ({@code
 * kube-apiserver.sh provision}): built once from Debian's {@code kubernetes} source package with
 * Debian's Go (~6 min on 2 cores, root for {@code apt-get}) and cached outside the project
 * ({@code ~/.cache/workqueue-toolkit/kube-apiserver}, or {@code WORKQUEUE_APISERVER_CACHE}); or
 * any binary named by {@code WORKQUEUE_KUBE_APISERVER}. A machine that cannot provision fails
 * {@link Builder#start()} with a {@link ProvisioningException} naming the step.
 *
 * <p><b>Lifetime.</b> {@link #close()} closes the clients and stops both processes; a JVM
 * shutdown hook stops those of every server not closed (a test that failed before its {@code
 * finally}, a JVM ended by a timeout). The directory is deleted on close.
 *
 * <p>Thread-safe.
 */
public final class RealApiServer implements ApiServer {
  /** The namespace of the clients, made at start (a real server has no {@code test} of its own). */
  public static final String NAMESPACE = "test";
  private static final Duration ETCD_READY = Duration.ofSeconds(30);
  private static final Duration API_READY = Duration.ofSeconds(90);

  private final Path dir;
  private final List<String> apiServerArgs;
  private final int port;
  private final EtcdGateway etcd;
  private final ServerProcess etcdProcess;
  private final Readiness readiness;
  private volatile ServerProcess apiServer; // written under this; read by the shutdown hook
  private final RealClients clients; // guarded by this
  private KubernetesClient seeder; // guarded by this
  private volatile ServerProcess second; // written under this; started by its first client
  private int secondPort; // guarded by this

  /** How kube-apiserver authorizes requests. */
  public enum Authorization {
    /** Every authenticated request is allowed (the default). */
    ALWAYS_ALLOW("AlwaysAllow"),
    /** Roles and bindings decide ({@code --authorization-mode=RBAC}). */
    RBAC("RBAC");

    private final String flag;

    Authorization(String flag) {
      this.flag = flag;
    }
  }

  /**
   * A builder of a server with the default authorization ({@link Authorization#ALWAYS_ALLOW}).
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Settings of a server to start; not thread-safe. */
  public static final class Builder {
    private Authorization authorization = Authorization.ALWAYS_ALLOW;
    private final List<String> flags = new ArrayList<>();

    private Builder() {}

    /**
     * How the server authorizes requests.
     *
     * @param authorization the mode
     * @return this builder
     */
    public Builder authorization(Authorization authorization) {
      this.authorization = Objects.requireNonNull(authorization, "authorization");
      return this;
    }

    /**
     * Adds a flag of kube-apiserver's own, such as {@code --watch-cache=false}.
     *
     * @param flag the flag, with its value
     * @return this builder
     * @throws IllegalArgumentException if it does not start with {@code --}
     */
    public Builder apiServerFlag(String flag) {
      if (!flag.startsWith("--")) {
        throw new IllegalArgumentException("a kube-apiserver flag starts with --; was " + flag);
      }
      flags.add(flag);
      return this;
    }

    /**
     * Provisions the binary if need be (minutes, once per machine), starts etcd and
     * kube-apiserver and returns once {@code /readyz} says ok and namespace {@value NAMESPACE}
     * exists.
     *
     * @return the running server
     * @throws ProvisioningException if the binary cannot be had, or a process does not start or
     *     become ready; the message names the step and its log
     */
    public RealApiServer start() {
      Path dir;
      try {
        dir = Files.createTempDirectory("workqueue-apiserver-");
      } catch (IOException e) {
        throw new ProvisioningException("cannot create a temporary directory: " + e);
      }
      Provisioning.kubeApiServer(dir.resolve("provision.log"));
      return new RealApiServer(dir, authorization, flags);
    }
  }

  /**
   * Makes sure kube-apiserver and etcd are on this machine: at once if the binary is cached,
   * else minutes (a build; root for {@code apt-get}). {@link Builder#start()} does it too; a test
   * suite calls this first, outside its tests' timeouts.
   *
   * @return the kube-apiserver binary
   * @throws ProvisioningException naming the step that failed
   */
  public static Path provision() {
    try {
      Path log = Files.createTempFile("workqueue-apiserver-provision-", ".log");
      Path binary = Provisioning.kubeApiServer(log);
      Files.deleteIfExists(log);
      return binary;
    } catch (IOException e) {
      throw new ProvisioningException("cannot write the provisioning log: " + e);
    }
  }

  private RealApiServer(Path dir, Authorization authorization, List<String> flags) {
    this.dir = dir;
    int[] ports = LoopbackPorts.free(3);
    int etcdPort = ports[0];
    this.port = ports[1];
    this.etcd = new EtcdGateway(etcdPort);
    this.etcdProcess = ServerProcess.start("etcd", dir.resolve("etcd.log"), List.of("etcd",
        dir.toString(), String.valueOf(etcdPort), String.valueOf(ports[2])));
    ShutdownHook.register(this);
    List<String> args = new ArrayList<>(List.of("apiserver", dir.toString(),
        String.valueOf(port), String.valueOf(etcdPort), authorization.flag));
    args.addAll(flags);
    this.apiServerArgs = List.copyOf(args);
    this.readiness = new Readiness(dir, port);
    this.clients = new RealClients(readiness.certificate(), NAMESPACE);
    try {
      etcdProcess.awaitReady("/health ok", etcd::healthy, ETCD_READY);
      startApiServer();
      seeder().namespaces().resource(new NamespaceBuilder().withNewMetadata()
          .withName(NAMESPACE).endMetadata().build()).create();
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * The server's address, {@code https://127.0.0.1:<port>}.
   *
   * @return the URL clients use
   */
  public URI url() {
    return URI.create("https://127.0.0.1:" + port);
  }

  /**
   * The token of user {@code admin}, a member of {@code system:masters}.
   *
   * @return the bearer token
   */
  public String adminToken() {
    return readiness.adminToken();
  }

  @Override
  public synchronized KubernetesClient newClient() {
    return clients.make(url(), adminToken(), null, null);
  }

  /**
   * A new client that authenticates with {@code token} (a ServiceAccount's, from a
   * TokenRequest): what RBAC grants that account is all it may do. Closed with the server.
   *
   * @param token a bearer token the server accepts
   * @param interceptor sees each request before it is sent (and each response after), or null
   * @return the client
   */
  public synchronized KubernetesClient newClient(String token, Interceptor interceptor) {
    return clients.make(url(), Objects.requireNonNull(token, "token"), "test-interceptor",
        interceptor);
  }

  @Override
  public synchronized KubernetesClient newClient(Interceptor interceptor) {
    return clients.make(url(), adminToken(), "test-interceptor",
        Objects.requireNonNull(interceptor, "interceptor"));
  }

  @Override
  public synchronized KubernetesClient newClient(AtomicBoolean partitioned, boolean hang) {
    return clients.make(url(), adminToken(), "partition", FaultInterceptors.partition(
        partitioned, hang ? clients.blackHole() : FaultInterceptors.REFUSED));
  }

  @Override
  public synchronized KubernetesClient newClient(ToLongFunction<HttpRequest> delayMillis) {
    return clients.make(url(), adminToken(), "slow", FaultInterceptors.delay(delayMillis));
  }

  /**
   * A new link to this server (a TCP relay), which a test takes down and brings back: down ends
   * the open watches of its clients and refuses new connections; closed with the server.
   *
   * @return the link, up
   */
  public synchronized ApiServerLink newLink() {
    return clients.link(port);
  }

  /**
   * A new client whose requests go through {@code link}; closed with the server.
   *
   * @param link a link of this server ({@link #newLink()})
   * @param interceptor sees each request before it is sent, or null
   * @return the client
   */
  public synchronized KubernetesClient newClient(ApiServerLink link, Interceptor interceptor) {
    return clients.make(URI.create("https://127.0.0.1:" + link.port()), adminToken(),
        "test-interceptor", interceptor);
  }

  /**
   * A new client of a second kube-apiserver on the same etcd (started by the first call, with
   * the same flags and credentials), as a control plane of several has: while {@link
   * #stopApiServer()} keeps the first down, a test changes objects through this one.
   *
   * @return an admin client of the second server
   * @throws ProvisioningException if the second server does not become ready
   */
  public synchronized KubernetesClient newClientOfSecondApiServer() {
    if (second == null) {
      secondPort = LoopbackPorts.free(1)[0];
      List<String> args = new ArrayList<>(apiServerArgs);
      args.set(2, String.valueOf(secondPort));
      second = ServerProcess.start("second kube-apiserver", dir.resolve("apiserver-2.log"), args);
      Readiness r = new Readiness(dir, secondPort);
      second.awaitReady("/readyz ok", r::ready, API_READY);
    }
    return clients.make(URI.create("https://127.0.0.1:" + secondPort), adminToken(), null, null);
  }

  @Override
  public <T extends HasMetadata> T create(T object) {
    Objects.requireNonNull(object, "object");
    return seeder().resource(object).create();
  }

  private synchronized KubernetesClient seeder() {
    if (seeder == null) {
      seeder = newClient();
    }
    return seeder;
  }

  /**
   * Stops kube-apiserver (SIGTERM: open watches end, new requests are refused); etcd and what it
   * stores stay. Does nothing if it is stopped.
   */
  public synchronized void stopApiServer() {
    if (apiServer != null) {
      apiServer.stop();
      apiServer = null;
    }
  }

  /**
   * Starts kube-apiserver again, on the same port, etcd and flags, and returns once {@code
   * /readyz} says ok. Does nothing if it runs.
   *
   * @throws ProvisioningException if it does not become ready within 90 s
   */
  public synchronized void startApiServer() {
    if (apiServer != null) {
      return;
    }
    apiServer = ServerProcess.start("kube-apiserver", dir.resolve("apiserver.log"),
        apiServerArgs);
    apiServer.awaitReady("/readyz ok", readiness::ready, API_READY);
  }

  /**
   * etcd's current revision: the newest resourceVersion of anything stored.
   *
   * @return the revision
   */
  public long etcdRevision() {
    return etcd.revision();
  }

  /**
   * Compacts etcd up to {@code revision}: a watch or list from an older resourceVersion that
   * reaches etcd (not the API server's watch cache) is answered 410 Gone.
   *
   * @param revision the revision to compact to, at most {@link #etcdRevision()}
   */
  public void compactEtcd(long revision) {
    etcd.compact(revision);
  }

  /** Closes every client, stops kube-apiserver and etcd, and deletes the directory. */
  @Override
  public synchronized void close() {
    clients.close();
    stopApiServer();
    if (second != null) {
      second.stop();
    }
    etcdProcess.stop();
    ShutdownHook.unregister(this);
    deleteQuietly(dir);
  }

  /** Stops both processes, for the shutdown hook: no lock, no client calls. */
  void kill() {
    ServerProcess a = apiServer;
    if (a != null) {
      a.stop();
    }
    ServerProcess b = second;
    if (b != null) {
      b.stop();
    }
    etcdProcess.stop();
  }

  private static void deleteQuietly(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException e) {
      // a temporary directory: left behind at worst
    }
  }

  @Override
  public String toString() {
    return "RealApiServer[" + url() + ", " + dir + "]";
  }
}
