package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.metrics.RecordingMetricsProvider;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The toolkit's threads are all named {@code workqueue-}; an idle queue owns none. */
class ThreadOwnershipTest {

  static Set<Thread> toolkitThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("workqueue-"))
        .collect(Collectors.toSet());
  }

  @Test
  void idleQueues_startNoThread() {
    Set<Thread> before = toolkitThreads();
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    List<WorkQueue<String>> queues = new java.util.ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      WorkQueue<String> q = i % 2 == 0
          ? WorkQueue.create()
          : WorkQueue.<String>builder().name("idle-" + i).metricsProvider(metrics).build();
      q.add("waiting"); // queued, never taken: still idle
      queues.add(q);
    }
    Set<Thread> after = toolkitThreads();
    after.removeAll(before);
    assertEquals(Set.of(), after);
    assertEquals(1000, queues.size());
  }
}
