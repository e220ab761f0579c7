package dev.workqueue.kubernetes;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP port a Kubernetes operator's pod exposes besides its work: the kubelet's liveness
 * and readiness probes and the Prometheus scrape, as controller-runtime's manager serves them
 * (there on two ports, health probes on :8081 and metrics on :8080; here on one, {@value
 * #DEFAULT_PORT} by default; build two servers to split them). On the JDK's own HTTP server
 * ({@code com.sun.net.httpserver}, module {@code jdk.httpserver}), with no other dependency.
 *
 * <ul>
 *   <li>{@code GET /healthz}: 200 when every health source {@linkplain Health#isLive() is
 *       live}, else 503; point the liveness probe here.
 *   <li>{@code GET /readyz}: 200 when every source {@linkplain Health#isReady() is ready}, else
 *       503; point the readiness probe here.
 *   <li>{@code GET /metrics}: the text the application's scrape function returns (such as
 *       Micrometer's {@code PrometheusMeterRegistry::scrape}), as {@value #PROMETHEUS_TEXT}.
 * </ul>
 *
 * <p>The probes' body is short text, one line a source: {@code [+]configmaps ok}, or {@code
 * [-]configmaps: } and what is not live or ready (the {@linkplain Health#failure() failure},
 * dead workers, caches not synced, each watch not open with its type, state and last error, a
 * shard member cut off from its Lease), then {@code healthz check passed} or {@code failed}, as
 * the Kubernetes API server's verbose probes read. Each request reads every source afresh.
 *
 * <p>A path the server was given nothing for ({@code /metrics} without a scrape, the probes
 * without a health source) and any other path is 404; a method other than GET and HEAD is 405.
 * A health source or scrape that throws, or returns null, makes that request 500 (and is
 * logged); the server goes on serving. Requests are handled by {@value #HANDLER_THREADS} daemon
 * threads named {@code workqueue-management-http-N}; the JDK's dispatcher thread is a daemon
 * too, so a server not closed does not keep the JVM alive. Thread-safe.
 *
 * <pre>{@code
 * ManagementServer server = ManagementServer.builder()
 *     .health("configmaps", controller::health)
 *     .metrics(prometheusRegistry::scrape)
 *     .start();                     // 0.0.0.0:8081
 * ...
 * server.close();
 * }</pre>
 */
public final class ManagementServer implements AutoCloseable {
  /**
   * The default port, controller-runtime's health probe port. All interfaces by default: the
   * kubelet probes, and Prometheus scrapes, the pod IP.
   */
  public static final int DEFAULT_PORT = 8081;
  /** The Prometheus text exposition format, version 0.0.4, as {@code /metrics} answers. */
  public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
  /** The threads that answer requests. */
  public static final int HANDLER_THREADS = 2;

  private static final Logger log = LoggerFactory.getLogger(ManagementServer.class);
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final AtomicInteger THREADS = new AtomicInteger();

  private final Map<String, Supplier<Health>> healths;
  private final Supplier<String> scrape; // null: no /metrics
  private final HttpServer server;
  private final ExecutorService handlers;

  private ManagementServer(Builder b) throws IOException {
    this.healths = Collections.unmodifiableMap(new LinkedHashMap<>(b.healths));
    this.scrape = b.scrape;
    InetSocketAddress address = b.address == null ? new InetSocketAddress(b.port)
        : new InetSocketAddress(b.address, b.port);
    this.server = HttpServer.create(address, 0);
    this.handlers = Executors.newFixedThreadPool(HANDLER_THREADS, daemon());
    server.createContext("/", this::handle);
    server.setExecutor(handlers);
    startOnDaemonThread(server);
  }

  /**
   * A builder; give it at least one health source or a scrape.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The address the server is bound to; its port is the one picked if port 0 was asked for.
   *
   * @return the bound address
   */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /**
   * The port the server listens on; the one picked if port 0 was asked for.
   *
   * @return the bound port
   */
  public int port() {
    return server.getAddress().getPort();
  }

  /**
   * Stops serving at once (open exchanges are cut off) and waits up to 10 seconds for the
   * handler threads to end. Idempotent. An interrupt of the calling thread does not cut the
   * wait short; it stays set.
   */
  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
    boolean interrupted = Thread.interrupted();
    try {
      while (true) {
        try {
          if (!handlers.awaitTermination(10, TimeUnit.SECONDS)) {
            log.warn("a management server's handler thread did not stop within 10 s");
          }
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** What a path answers. */
  private record Response(int status, String contentType, String body) {}

  private void handle(HttpExchange exchange) {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      Optional<Supplier<Response>> route = route(path);
      if (route.isEmpty()) {
        send(exchange, new Response(404, TEXT, "404 not found: " + path + "\n"));
        return;
      }
      String method = exchange.getRequestMethod();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        send(exchange, new Response(405, TEXT, "405 method not allowed: " + method + "\n"));
        return;
      }
      Response response;
      try {
        response = route.get().get();
      } catch (RuntimeException e) {
        log.warn("management server: {} failed", path, e);
        response = new Response(500, TEXT,
            "500 internal error: " + ProbeReport.oneLine(e.toString()) + "\n");
      }
      send(exchange, response);
    } catch (IOException | RuntimeException e) {
      log.debug("management server: could not answer a request", e); // the client went away
    }
  }

  private Optional<Supplier<Response>> route(String path) {
    switch (path) {
      case "/healthz":
        return healths.isEmpty() ? Optional.empty()
            : Optional.of(() -> probe(ProbeReport.Probe.LIVENESS));
      case "/readyz":
        return healths.isEmpty() ? Optional.empty()
            : Optional.of(() -> probe(ProbeReport.Probe.READINESS));
      case "/metrics":
        return scrape == null ? Optional.empty() : Optional.of(() -> new Response(200,
            PROMETHEUS_TEXT, Objects.requireNonNull(scrape.get(), "the scrape returned null")));
      default:
        return Optional.empty();
    }
  }

  private Response probe(ProbeReport.Probe probe) {
    Map<String, Health> now = new LinkedHashMap<>();
    healths.forEach((name, source) -> now.put(name, Objects.requireNonNull(source.get(),
        () -> "the health source " + name + " returned null")));
    ProbeReport.Result r = ProbeReport.of(probe, now);
    return new Response(r.passed() ? 200 : 503, TEXT, r.text());
  }

  private static void send(HttpExchange exchange, Response r) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", r.contentType());
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    if (exchange.getRequestMethod().equals("HEAD")) {
      exchange.sendResponseHeaders(r.status(), -1);
      return;
    }
    byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(r.status(), body.length == 0 ? -1 : body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  private static ThreadFactory daemon() {
    return r -> {
      Thread t = new Thread(r, "workqueue-management-http-" + THREADS.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Starts {@code server} from a daemon thread: the JDK's dispatcher thread takes its daemon
   * flag from the thread that starts the server, and a probe server should not keep the JVM up.
   */
  private static void startOnDaemonThread(HttpServer server) {
    Thread starter = new Thread(server::start, "workqueue-management-start");
    starter.setDaemon(true);
    starter.start();
    boolean interrupted = false;
    while (true) {
      try {
        starter.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Builds and starts a {@link ManagementServer}. Each setter checks its argument at once; not
   * thread-safe.
   */
  public static final class Builder {
    private final Map<String, Supplier<Health>> healths = new LinkedHashMap<>();
    private Supplier<String> scrape;
    private InetAddress address; // null: all interfaces
    private int port = DEFAULT_PORT;
    private boolean portSet;
    private boolean addressSet;

    private Builder() {}

    /**
     * Adds a health source, such as {@code controller::health}: the probes pass when every
     * source's health does. Sources are reported in the order added.
     *
     * @param name the source's name in the probes' text, such as the controller's name
     * @param health read on each probe request; must not return null
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code name} is blank, spans lines, or names a source
     *     added before
     */
    public Builder health(String name, Supplier<Health> health) {
      Objects.requireNonNull(name, "name must not be null");
      Objects.requireNonNull(health, "health must not be null");
      if (name.isBlank() || name.lines().count() != 1) {
        throw new IllegalArgumentException("name must be one non-blank line, was \"" + name
            + "\"");
      }
      if (healths.putIfAbsent(name, health) != null) {
        throw new IllegalArgumentException("a health source named " + name + " was added before");
      }
      return this;
    }

    /**
     * Serves {@code /metrics}: the Prometheus text format 0.0.4 that {@code scrape} returns,
     * such as {@code PrometheusMeterRegistry::scrape}. Without it {@code /metrics} is 404.
     *
     * @param scrape read on each request; must not return null
     * @return this builder
     * @throws NullPointerException if {@code scrape} is null
     * @throws IllegalStateException if called before
     */
    public Builder metrics(Supplier<String> scrape) {
      Objects.requireNonNull(scrape, "scrape must not be null");
      if (this.scrape != null) {
        throw new IllegalStateException("metrics was already set");
      }
      this.scrape = scrape;
      return this;
    }

    /**
     * The port to listen on; default {@value #DEFAULT_PORT}. Port 0 picks a free one ({@link
     * ManagementServer#port()} tells which).
     *
     * @param port within [0, 65535]
     * @return this builder
     * @throws IllegalArgumentException if {@code port} is out of range
     * @throws IllegalStateException if called before
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be within [0, 65535], was " + port);
      }
      if (portSet) {
        throw new IllegalStateException("port was already set to " + this.port);
      }
      this.port = port;
      this.portSet = true;
      return this;
    }

    /**
     * The address to listen on; default all interfaces, as the kubelet probes the pod IP. Give
     * {@code InetAddress.getLoopbackAddress()} for a server only the pod itself reaches.
     *
     * @param address the local address to bind
     * @return this builder
     * @throws NullPointerException if {@code address} is null
     * @throws IllegalStateException if called before
     */
    public Builder bindAddress(InetAddress address) {
      Objects.requireNonNull(address, "address must not be null");
      if (addressSet) {
        throw new IllegalStateException("bindAddress was already set to " + this.address);
      }
      this.address = address;
      this.addressSet = true;
      return this;
    }

    /**
     * Binds the port and starts serving.
     *
     * @return the running server; {@link ManagementServer#close() close} it to stop
     * @throws IllegalStateException if neither a health source nor a scrape was given
     * @throws IOException if the address cannot be bound (the port is taken, say)
     */
    public ManagementServer start() throws IOException {
      if (healths.isEmpty() && scrape == null) {
        throw new IllegalStateException(
            "nothing to serve: give at least one health(name, source) or metrics(scrape)");
      }
      return new ManagementServer(this);
    }
  }
}
