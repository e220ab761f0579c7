package dev.workqueue;

import static java.time.Duration.ofSeconds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.ControllerStatus;
import dev.workqueue.controller.Result;
import dev.workqueue.ratelimit.RateLimiters;
import org.junit.jupiter.api.Test;

/**
 * {@link Controller#status()} reads the queue's two counts one after the other; a key that
 * falls due between the two readings must still be counted (it may be counted twice, never
 * not at all). Here in {@code dev.workqueue} for {@link TestClock}, which moves the time right
 * after the first reading.
 */
class ControllerStatusCountsTest {
  @Test
  void status_countsAKeyThatFallsDueBetweenItsTwoCounts() {
    TestClock clock = TestClock.counting();
    RateLimitingQueue<String> queue = WorkQueue.<String>builder().clock(clock)
        .buildRateLimiting(RateLimiters.defaultControllerRateLimiter());
    Controller<String> controller = Controller.<String>builder("status-counts").clock(clock)
        .queue(() -> queue).reconciler(key -> Result.success())
        .build(); // not started: nothing takes the key
    queue.addAfter("k", ofSeconds(1));
    clock.afterNextRead(() -> clock.time.step(ofSeconds(2)));
    ControllerStatus status = controller.status();
    assertTrue(status.queued() + status.waiting() >= 1,
        "the key is waiting or queued, but status said queued " + status.queued()
            + ", waiting " + status.waiting());
    assertEquals(1, queue.size(), "due by now");
  }
}
