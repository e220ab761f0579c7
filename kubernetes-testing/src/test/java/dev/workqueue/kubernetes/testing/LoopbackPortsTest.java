package dev.workqueue.kubernetes.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {
  @Test
  void free_givesDistinctPorts_eachOfWhichAServerCanBind() throws Exception {
    int[] ports = LoopbackPorts.free(3);
    assertEquals(3, Arrays.stream(ports).distinct().count(), Arrays.toString(ports));
    for (int port : ports) {
      try (ServerSocket s = new ServerSocket()) { // throws if the port were still held
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        assertEquals(port, s.getLocalPort());
      }
    }
  }
}
