package dev.workqueue.kubernetes.testing;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One JVM shutdown hook for every {@link RealApiServer} not closed: a test that fails before it
 * closes its server, or a JVM ended early, must not leave etcd and kube-apiserver running.
 */
final class ShutdownHook {
  private static final Set<RealApiServer> LIVE = new LinkedHashSet<>(); // guarded by the class
  private static boolean installed; // guarded by the class

  private ShutdownHook() {}

  static synchronized void register(RealApiServer server) {
    if (!installed) {
      Runtime.getRuntime().addShutdownHook(new Thread(ShutdownHook::killAll,
          "workqueue-real-apiserver-shutdown"));
      installed = true;
    }
    LIVE.add(server);
  }

  static synchronized void unregister(RealApiServer server) {
    LIVE.remove(server);
  }

  private static void killAll() {
    List<RealApiServer> left;
    synchronized (ShutdownHook.class) {
      left = List.copyOf(LIVE);
    }
    left.forEach(RealApiServer::kill);
  }
}
