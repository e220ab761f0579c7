package dev.workqueue.scheduling;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.workqueue.clock.Clock;
import dev.workqueue.scheduling.Fixtures.Job;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The real clock's timer drives the back-off flush: the one test that waits for real time. */
@Timeout(10)
class SystemClockSmokeTest {
  @Test
  void backoffFlush_runsOnTheSharedTimer() throws Exception {
    SchedulingQueue<String, Job> q = SchedulingQueue.<String, Job>builder(Job::id)
        .clock(Clock.system())
        .initialBackoff(Duration.ofMillis(10))
        .maxBackoff(Duration.ofMillis(10))
        .popFromBackoff(false)
        .alignBackoffToWindow(false)
        .build();
    q.add(new Job("a", 0));
    q.requeueFailed(q.pop().orElseThrow(), Rejectors.none());
    CompletableFuture<Optional<PoppedItem<String, Job>>> next =
        SchedulingQueueTest.popAsync(q);
    // the flush runs on the next whole second after the 10 ms back-off
    await().atMost(Duration.ofSeconds(5)).until(next::isDone);
    assertEquals("a", next.get().orElseThrow().key());
    q.close();
  }
}
