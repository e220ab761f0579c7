package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free ports on the loopback address, for the servers {@link RealApiServer} starts. */
final class LoopbackPorts {
  private LoopbackPorts() {}

  /**
   * {@code n} distinct free loopback ports: all {@code n} are held open while they are chosen
   * (chosen one at a time, one port could come back twice). Each is released before its server
   * binds it, so another process may take it meanwhile: a small race, on a test's machine.
   */
  static int[] free(int n) {
    List<ServerSocket> open = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        open.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new UncheckedIOException("no free loopback port", e);
    } finally {
      for (ServerSocket s : open) {
        try {
          s.close();
        } catch (IOException ignored) {
          // never connected: nothing to flush, and the port is free either way
        }
      }
    }
  }
}
