package dev.workqueue.scheduling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.testsupport.ToolkitThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * As the work queues' {@code ThreadOwnershipTest}: an idle scheduling queue owns no thread, and
 * once closed (after its back-off flush ran on the shared timer, on the real clock) no thread
 * of the toolkit's stays alive; the timer pool's threads end after one idle second.
 */
class SchedulingThreadOwnershipTest {

  @Test
  void idleQueues_startNoThread() {
    Set<Thread> before = ToolkitThreads.alive();
    List<SchedulingQueue<String, String>> queues = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      SchedulingQueue<String, String> q = SchedulingQueue.<String, String>builder(s -> s).build();
      q.add("waiting");
      queues.add(q);
    }
    Set<Thread> after = ToolkitThreads.alive();
    after.removeAll(before);
    assertEquals(Set.of(), after);
    assertEquals(1000, queues.size());
  }

  @Test
  void afterClose_noThreadOfOursIsAlive() throws Exception {
    await().atMost(Duration.ofSeconds(10)).until(() -> ToolkitThreads.alive().isEmpty());
    SchedulingQueue<String, String> q = SchedulingQueue.<String, String>builder(s -> s).build();
    q.add("x");
    q.requeueFailed(q.pop().orElseThrow(), Rejectors.none()); // arms the back-off flush
    q.close();
    await().atMost(Duration.ofSeconds(10))
        .alias("no toolkit thread alive after closing a scheduling queue")
        .until(() -> ToolkitThreads.alive().isEmpty());
  }
}
