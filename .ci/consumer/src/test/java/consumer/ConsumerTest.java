package consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a user of the published artifacts does first: a queue, a worker, a retry. */
class ConsumerTest {
  @Test
  void aQueueFromTheBomDedupsHandsOutAndRetries() throws Exception {
    RateLimitingQueue<String> q = WorkQueue.<String>builder()
        .buildRateLimiting(RateLimiters.defaultControllerRateLimiter());
    q.add("default/a");
    q.add("default/a"); // already queued: merged
    q.add("default/b");
    assertEquals(2, q.size());

    List<String> handled = new ArrayList<>();
    Optional<String> key;
    while ((key = q.poll(Duration.ZERO)).isPresent()) {
      handled.add(key.get());
      q.forget(key.get());
      q.done(key.get());
    }
    assertEquals(List.of("default/a", "default/b"), handled);

    q.addRateLimited("default/a"); // a failed reconcile: back in after its back-off
    assertEquals(1, q.numRequeues("default/a"));
    assertEquals(Optional.of("default/a"), q.poll(Duration.ofSeconds(5)));
    q.done("default/a");
    q.shutDown();
    assertTrue(q.isShuttingDown());
  }
}
