package dev.workqueue.kubernetes.testing;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.List;

/**
 * {@link MockApiServer}'s CRUD dispatcher: it answers 403 to a request a client marked ({@link
 * MockApiServer#newClient(ApiServerLink, java.util.function.Predicate)}), and runs a watch's
 * close off the server's event loop. The mock's watch listener, told on the event loop that
 * the client closed the watch, waits (up to a minute) for its event sender, whose send waits
 * for that same event loop: a client that closes a
 * watch while an event to it is being sent (a leader's watch of its Lease, closed as the
 * leadership ends, while a write of that Lease is sent) would stall the whole server.
 */
final class ClosingApartDispatcher extends KubernetesCrudDispatcher {
  /** The header a client's interceptor sets on a request the server must refuse (403). */
  static final String FORBIDDEN = "X-Test-Forbidden";

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

  /** A watch listener that runs the close callbacks on a thread of their own. */
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
    @SuppressWarnings("deprecation") // forwarded like every other call, deprecated or not
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
}
