package dev.workqueue.testsupport;

import java.util.Set;
import java.util.stream.Collectors;

/** For thread-ownership tests of every module: the toolkit names all its threads workqueue-. */
public final class ToolkitThreads {
  private ToolkitThreads() {}

  /** The live threads whose name starts with {@code workqueue-}. */
  public static Set<Thread> alive() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("workqueue-"))
        .collect(Collectors.toSet());
  }
}
