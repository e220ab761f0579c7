package dev.workqueue.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A few read-only HTTP paths on the JDK's own HTTP server: loopback only, one handler thread.
 * The demo's Prometheus scrape ({@link #metrics}); the Kubernetes example's probes are
 * served by the toolkit's {@code ManagementServer}. For the examples; an application on Spring
 * Boot, Quarkus or Micronaut serves these through the framework instead.
 */
final class LoopbackEndpoint implements AutoCloseable {
  /** The Prometheus text exposition format, version 0.0.4. */
  static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";
  static final String TEXT = "text/plain; charset=utf-8";

  /** What a path answers: its status, content type and body. */
  record Response(int status, String contentType, String body) {}

  private final HttpServer server;
  private final ExecutorService handlers;

  private LoopbackEndpoint(HttpServer server, ExecutorService handlers) {
    this.server = server;
    this.handlers = handlers;
  }

  /** Serves {@code scrape} at {@code /metrics} on 127.0.0.1:{@code port} (0: a free port). */
  static LoopbackEndpoint metrics(int port, Supplier<String> scrape) throws IOException {
    return start(port, "demo-metrics-http",
        Map.of("/metrics", () -> new Response(200, PROMETHEUS, scrape.get())));
  }

  /**
   * Serves {@code routes} (path to answer) on 127.0.0.1:{@code port} ({@code 0}: a free port);
   * any other path is 404, any method but GET and HEAD 405.
   *
   * @throws IOException if the port cannot be bound
   */
  static LoopbackEndpoint start(int port, String threadName,
      Map<String, Supplier<Response>> routes) throws IOException {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be within [0, 65535], was " + port);
    }
    InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
    HttpServer server = HttpServer.create(new InetSocketAddress(loopback, port), 0);
    server.createContext("/", exchange -> respond(exchange, routes));
    ExecutorService handlers = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, threadName);
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(handlers);
    server.start();
    return new LoopbackEndpoint(server, handlers);
  }

  private static void respond(HttpExchange exchange, Map<String, Supplier<Response>> routes)
      throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      Supplier<Response> route = routes.get(exchange.getRequestURI().getPath());
      if (route == null) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      Response r = route.get();
      byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", r.contentType());
      if (method.equals("HEAD")) {
        exchange.sendResponseHeaders(r.status(), -1);
        return;
      }
      exchange.sendResponseHeaders(r.status(), body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Where {@code path} is served: {@code http://127.0.0.1:PORT/path}. */
  URI uri(String path) {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
  }

  /**
   * Stops serving at once and waits for its thread to end. An interrupt of the calling thread
   * (the demo's signal to stop) does not cut this short; it stays set.
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
            throw new IllegalStateException("the endpoint's handler thread did not stop");
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
}
