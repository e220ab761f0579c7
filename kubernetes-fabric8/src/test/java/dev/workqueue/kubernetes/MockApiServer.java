package dev.workqueue.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
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

  private static final String FORBIDDEN = "X-Test-Forbidden";

  private final KubernetesMockServer server;
  private final List<KubernetesClient> clients = new ArrayList<>();
  private final List<ApiServerLink> links = new ArrayList<>();

  MockApiServer() {
    server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
        new ClosingApartDispatcher(), false);
    server.init(InetAddress.getLoopbackAddress(), 0);
  }

  /** A new link to this server, which a test takes down and brings back; closed with it. */
  synchronized ApiServerLink newLink() {
    ApiServerLink link = new ApiServerLink(server.getPort());
    links.add(link);
    return link;
  }

  /**
   * A new client whose requests go through {@code link}, and whose requests that {@code
   * forbidden} accepts (at the time) get 403 Forbidden, as from an RBAC role that does not grant
   * them: a list fails, a watch cannot open.
   */
  synchronized KubernetesClient newClient(ApiServerLink link, Predicate<HttpRequest> forbidden) {
    Interceptor through = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        URI u = request.uri();
        builder.uri(URI.create(u.getScheme() + "://" + u.getHost() + ":" + link.port()
            + u.getRawPath() + (u.getRawQuery() == null ? "" : "?" + u.getRawQuery())));
        if (forbidden.test(request)) {
          builder.setHeader(FORBIDDEN, "true");
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("link", through)));
    clients.add(c);
    return c;
  }

  /** Whether {@code request} lists (not watches) objects whose plural name is {@code plural}. */
  static boolean isList(HttpRequest request, String plural) {
    String query = request.uri().getRawQuery();
    return request.method().equals("GET") && request.uri().getPath().endsWith("/" + plural)
        && (query == null || !query.contains("watch=true"));
  }

  /**
   * The CRUD dispatcher, answering 403 to a request a client marked ({@link #newClient(ApiServerLink,
   * Predicate)}), and a watch's close runs off the server's event loop. The mock's watch
   * listener, told on the event loop that the client closed the watch, waits (up to a minute)
   * for its event sender, whose send waits for that same event loop: a client that closes a
   * watch while an event to it is being sent (a leader's watch of its Lease, closed as the
   * leadership ends, while a write of that Lease is sent) would stall the whole server.
   */
  private static final class ClosingApartDispatcher extends KubernetesCrudDispatcher {
    ClosingApartDispatcher() {
      super(List.of());
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      if (request.getHeader(FORBIDDEN) != null) { // marked by the client's interceptor
        return new MockResponse().setResponseCode(403).setBody("{\"kind\":\"Status\","
            + "\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Forbidden\","
            + "\"message\":\"forbidden by the test\",\"code\":403}");
      }
      return super.dispatch(request);
    }

    @Override
    public MockResponse handleWatch(String path) {
      MockResponse response = super.handleWatch(path);
      WebSocketListener inner = response.getWebSocketListener();
      return inner == null ? response : response.withWebSocketUpgrade(new ClosingApart(inner));
    }
  }

  private static final class ClosingApart extends WebSocketListener {
    private final WebSocketListener inner;

    ClosingApart(WebSocketListener inner) {
      this.inner = inner;
    }

    @Override
    public void onBeforeAccept(WebSocket webSocket, Response response) {
      inner.onBeforeAccept(webSocket, response);
    }

    @Override
    public void onOpen(WebSocket webSocket, Response response) {
      inner.onOpen(webSocket, response);
    }

    @Override
    public void onMessage(WebSocket webSocket, String text) {
      inner.onMessage(webSocket, text);
    }

    @Override
    public void onMessage(WebSocket webSocket, ByteString bytes) {
      inner.onMessage(webSocket, bytes);
    }

    @Override
    public void onMessage(WebSocket webSocket, byte[] bytes) {
      inner.onMessage(webSocket, bytes);
    }

    @Override
    public void onClosing(WebSocket webSocket, int code, String reason) {
      apart(() -> inner.onClosing(webSocket, code, reason));
    }

    @Override
    public void onClosed(WebSocket webSocket, int code, String reason) {
      apart(() -> inner.onClosed(webSocket, code, reason));
    }

    @Override
    public void onFailure(WebSocket webSocket, Throwable t, Response response) {
      inner.onFailure(webSocket, t, response);
    }

    private static void apart(Runnable r) {
      Thread t = new Thread(r, "test-mock-watch-close");
      t.setDaemon(true);
      t.start();
    }
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
    return newClient(partitioned, false);
  }

  /**
   * As {@link #newClient(AtomicBoolean)}; with {@code hang}, a cut-off request is not refused
   * but hangs: it goes to a loopback port that accepts connections and never answers, as when
   * the network drops packets.
   */
  synchronized KubernetesClient newClient(AtomicBoolean partitioned, boolean hang) {
    String away = hang ? "http://127.0.0.1:" + blackHole() + "/partitioned"
        : "http://127.0.0.1:1/partitioned";
    Interceptor cut = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        if (partitioned.get()) {
          builder.uri(URI.create(away));
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("partition", cut)));
    clients.add(c);
    return c;
  }

  /**
   * A new client whose requests each wait {@code delayMillis.applyAsLong(request)} before they
   * are sent (on the calling thread; an interrupt ends the wait), as a slow network or a busy API
   * server would make them: to slow a replica's Lease calls and nothing else.
   */
  synchronized KubernetesClient newClient(ToLongFunction<HttpRequest> delayMillis) {
    Interceptor slow = new Interceptor() {
      @Override
      public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
        long millis = delayMillis.applyAsLong(request);
        if (millis > 0) {
          try {
            Thread.sleep(millis);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the caller gave up on the request
          }
        }
      }
    };
    KubernetesClient c = server.createClient(b -> b.withHttpClientBuilderConsumer(
        h -> h.addOrReplaceInterceptor("slow", slow)));
    clients.add(c);
    return c;
  }

  /** Whether {@code request} reads, writes or watches a Lease. */
  static boolean isLease(HttpRequest request) {
    return request.uri().getPath().contains("/leases");
  }

  private java.net.ServerSocket blackHole;
  private final List<java.net.Socket> held = new ArrayList<>();

  /** A loopback port that accepts connections, reads nothing and never answers. */
  private int blackHole() {
    if (blackHole == null) {
      try {
        blackHole = new java.net.ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      Thread t = new Thread(() -> {
        while (!blackHole.isClosed()) {
          try {
            java.net.Socket s = blackHole.accept();
            synchronized (held) {
              held.add(s);
            }
          } catch (java.io.IOException e) {
            return; // closed
          }
        }
      }, "test-black-hole");
      t.setDaemon(true);
      t.start();
    }
    return blackHole.getLocalPort();
  }

  @Override
  public synchronized void close() {
    clients.forEach(KubernetesClient::close);
    links.forEach(ApiServerLink::close);
    server.destroy();
    if (blackHole != null) {
      try {
        blackHole.close();
        synchronized (held) {
          for (java.net.Socket s : held) {
            s.close();
          }
        }
      } catch (java.io.IOException e) {
        // closing anyway
      }
    }
  }
}
