package dev.workqueue.kubernetes;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The module's own threads: daemons, named after what they serve, so no one keeps a JVM up. */
final class DaemonThreads {
  private DaemonThreads() {}

  /** One daemon thread named {@code name} that runs tasks in the order they were given. */
  static ExecutorService single(String name) {
    return Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }
}
