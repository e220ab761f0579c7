package dev.workqueue.scheduling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * As the work queues' {@code ThreadOwnershipTest}: an idle scheduling queue owns no thread, and
 * once closed (after its back-off flush ran on the shared timer, on the real clock) no thread
 * of the toolkit's stays alive; the timer pool's threads end after one idle second.
 */
class SchedulingThreadOwnershipTest {

  private static Set<Thread> toolkitThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("workqueue-"))
        .collect(Collectors.toSet());
  }

  @Test
  void idleQueues_startNoThread() {
    Set<Thread> before = toolkitThreads();
    List<SchedulingQueue<String, String>> queues = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      SchedulingQueue<String, String> q = SchedulingQueue.<String, String>builder(s -> s).build();
      q.add("waiting");
      queues.add(q);
    }
    Set<Thread> after = toolkitThreads();
    after.removeAll(before);
    assertEquals(Set.of(), after);
    assertEquals(1000, queues.size());
  }

  @Test
  void afterClose_noThreadOfOursIsAlive() throws Exception {
    await().atMost(Duration.ofSeconds(10)).until(() -> toolkitThreads().isEmpty());
    SchedulingQueue<String, String> q = SchedulingQueue.<String, String>builder(s -> s).build();
    q.add("x");
    q.requeueFailed(q.pop().orElseThrow(), Rejectors.none()); // arms the back-off flush
    q.close();
    await().atMost(Duration.ofSeconds(10))
        .alias("no toolkit thread alive after closing a scheduling queue")
        .until(() -> toolkitThreads().isEmpty());
  }
}
