package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback TCP relay between one replica's client and the mock API server, which a test takes
 * {@linkplain #down() down} and brings back {@linkplain #up() up}: down closes every connection
 * through it (open watches included) and closes each new one at once, as a client sees an API
 * server that restarts or a network that drops it. Unlike the partition of {@link
 * MockApiServer#newClient(java.util.concurrent.atomic.AtomicBoolean)}, which only turns new
 * requests away, it also ends the watches already open.
 *
 * <p>Made by {@link MockApiServer#newLink()} and used by the clients of {@link
 * MockApiServer#newClient(ApiServerLink, java.util.function.Predicate)}; closed with the server.
 * A process of its own (a child JVM) can reach the server through {@link #port()}. Thread-safe;
 * each connection through it costs two daemon threads.
 */
public final class ApiServerLink implements AutoCloseable {
  private final int target;
  private final ServerSocket listener;
  private final List<Socket> open = new ArrayList<>(); // guarded by this
  private boolean down; // guarded by this

  ApiServerLink(int target) {
    this.target = target;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::accept, "test-api-server-link");
    t.setDaemon(true);
    t.start();
  }

  /**
   * The loopback port the link listens on, which relays to the server.
   *
   * @return the port a client connects to
   */
  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Takes the link down: closes every connection through it, and each new one as it comes,
   * until {@link #up()}.
   */
  public synchronized void down() {
    down = true;
    open.forEach(ApiServerLink::closeQuietly);
    open.clear();
  }

  /** Brings the link back up: relays new connections again (the closed ones stay closed). */
  public synchronized void up() {
    down = false;
  }

  private void accept() {
    while (!listener.isClosed()) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      try {
        relay(client);
      } catch (IOException e) {
        closeQuietly(client);
      }
    }
  }

  private void relay(Socket client) throws IOException {
    synchronized (this) {
      if (down) {
        client.close();
        return;
      }
    }
    Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
    synchronized (this) {
      if (down) { // went down while connecting
        closeQuietly(server);
        client.close();
        return;
      }
      open.add(client);
      open.add(server);
    }
    pump(client, server);
    pump(server, client);
  }

  /** Copies {@code from} to {@code to} until either closes, then closes both. */
  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // closed by down() or by either side
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        synchronized (ApiServerLink.this) {
          open.remove(from);
          open.remove(to);
        }
      }
    }, "test-api-server-link-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** Takes the link down for good and stops listening. */
  @Override
  public synchronized void close() {
    down();
    try {
      listener.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
