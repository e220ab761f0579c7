package dev.workqueue.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A Prometheus scrape endpoint, {@code GET http://127.0.0.1:PORT/metrics}, on the JDK's own
 * HTTP server: loopback only, one handler thread ({@code demo-metrics-http}). For the demo; an
 * application on Spring Boot, Quarkus or Micronaut publishes its registry through the
 * framework instead.
 */
final class MetricsEndpoint implements AutoCloseable {
  /** The Prometheus text exposition format, version 0.0.4. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  static final String PATH = "/metrics";

  private final HttpServer server;
  private final ExecutorService handlers;

  private MetricsEndpoint(HttpServer server, ExecutorService handlers) {
    this.server = server;
    this.handlers = handlers;
  }

  /**
   * Serves {@code scrape} on 127.0.0.1:{@code port} ({@code 0}: a free port).
   *
   * @throws IOException if the port cannot be bound
   */
  static MetricsEndpoint start(int port, Supplier<String> scrape) throws IOException {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be within [0, 65535], was " + port);
    }
    InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
    HttpServer server = HttpServer.create(new InetSocketAddress(loopback, port), 0);
    server.createContext(PATH, exchange -> respond(exchange, scrape));
    ExecutorService handlers = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "demo-metrics-http");
      t.setDaemon(true);
      return t;
    });
    server.setExecutor(handlers);
    server.start();
    return new MetricsEndpoint(server, handlers);
  }

  private static void respond(HttpExchange exchange, Supplier<String> scrape) throws IOException {
    try (exchange) {
      String method = exchange.getRequestMethod();
      if (!exchange.getRequestURI().getPath().equals(PATH)) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        exchange.sendResponseHeaders(405, -1);
        return;
      }
      byte[] body = scrape.get().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
      if (method.equals("HEAD")) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** Where it serves: {@code http://127.0.0.1:PORT/metrics}. */
  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
  }

  /**
   * Stops serving at once and waits for its threads to end. An interrupt of the calling
   * thread (the demo's signal to stop) does not cut this short; it stays set.
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
            throw new IllegalStateException("the metrics handler thread did not stop");
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
