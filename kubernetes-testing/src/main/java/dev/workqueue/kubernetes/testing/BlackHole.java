package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback port that accepts connections, reads nothing and never answers, as a network that
 * drops packets: a request sent there hangs until the client's timeouts. One daemon thread
 * accepts; {@link #close()} closes the port and every connection it holds. Thread-safe.
 */
final class BlackHole implements AutoCloseable {
  private final ServerSocket listener;
  private final List<Socket> held = new ArrayList<>(); // guarded by itself

  BlackHole() {
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread t = new Thread(this::accept, "test-black-hole");
    t.setDaemon(true);
    t.start();
  }

  /** Where a request goes to hang. */
  URI uri() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort() + "/partitioned");
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket s = listener.accept();
        synchronized (held) {
          held.add(s);
        }
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
      synchronized (held) {
        for (Socket s : held) {
          s.close();
        }
      }
    } catch (IOException e) {
      // closing anyway
    }
  }
}
