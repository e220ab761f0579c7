package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.WorkQueue;
import org.junit.jupiter.api.Test;

class AddOutcomeTest {

  @Test
  void tellsAQueuingAddFromAMergedOne_alsoWhileTheKeyIsProcessing() throws Exception {
    AddOutcome outcome = new AddOutcome();
    WorkQueue<String> q = WorkQueue.<String>builder().name("q").metricsProvider(outcome).build();
    try {
      assertTrue(outcome.queued(() -> q.add("a")), "a new key is queued");
      assertFalse(outcome.queued(() -> q.add("a")), "a queued key: merged");
      assertEquals("a", q.get().orElseThrow());
      assertTrue(outcome.queued(() -> q.add("a")), "processing: queued again, for after done");
      assertFalse(outcome.queued(() -> q.add("a")), "queued again already: merged");
      assertTrue(outcome.queued(() -> q.add("b")));
      q.done("a");
      assertEquals(2, q.size(), "a (queued again at done) and b");
    } finally {
      q.shutDown();
    }
  }

  @Test
  void anAddThatQueuesOnAnotherThread_isNotThisThreadsAdd() throws Exception {
    AddOutcome outcome = new AddOutcome();
    WorkQueue<String> q = WorkQueue.<String>builder().name("q").metricsProvider(outcome).build();
    try {
      q.add("a");
      assertFalse(outcome.queued(() -> {
        Thread other = new Thread(() -> q.add("b"));
        other.start();
        try {
          other.join();
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
        q.add("a");
      }), "b was queued by the other thread, and this thread's add of a merged");
      assertEquals(2, q.size());
    } finally {
      q.shutDown();
    }
  }
}
