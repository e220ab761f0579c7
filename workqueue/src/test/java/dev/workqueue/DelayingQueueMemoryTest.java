package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.testing.RecordingMetricsProvider;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The delaying queue lets go of its items: once an item has left the queue (done, cancelled, or
 * discarded at shutdown) nothing in the queue, its heap, its clock wake-ups or its metrics keeps
 * it reachable; and the heap's arrays shrink back after a burst.
 */
class DelayingQueueMemoryTest {
  private static final Duration DELAY = Duration.ofMillis(50);

  private final FakeClock clock = new FakeClock();

  private DelayingQueue<Object> queue(boolean withMetrics) {
    WorkQueueBuilder<Object> b = WorkQueue.builder().clock(clock);
    if (withMetrics) {
      b.name("memory").metricsProvider(new RecordingMetricsProvider());
    }
    return b.buildDelaying();
  }

  /** A fresh item added after {@link #DELAY}; only the returned reference points at it. */
  private static WeakReference<Object> addAfterFresh(DelayingQueue<Object> q) {
    Object item = new Object();
    q.addAfter(item, DELAY);
    return new WeakReference<>(item);
  }

  private static void assertCollected(WeakReference<Object> ref, String what) {
    for (int i = 0; i < 50 && ref.get() != null; i++) {
      System.gc();
      Thread.onSpinWait();
    }
    assertNull(ref.get(), what);
  }

  @ParameterizedTest(name = "metrics={0}")
  @ValueSource(booleans = {false, true})
  void delayedItem_isCollectableAfterPromotionGetAndDone(boolean withMetrics) throws Exception {
    DelayingQueue<Object> q = queue(withMetrics);
    WeakReference<Object> ref = addAfterFresh(q);
    q.addAfter("other", DELAY.multipliedBy(2));
    clock.step(DELAY);
    assertEquals(1, q.size(), "promoted");
    Optional<Object> taken = q.poll(Duration.ZERO);
    assertTrue(taken.isPresent());
    q.done(taken.get());
    taken = null;
    assertCollected(ref, "the queue still references a promoted, done item");
    clock.step(DELAY);
    assertEquals(Optional.of("other"), q.poll(Duration.ZERO), "the queue still works");
  }

  @ParameterizedTest(name = "metrics={0}")
  @ValueSource(booleans = {false, true})
  void delayedItem_isCollectableAfterCancel(boolean withMetrics) {
    DelayingQueue<Object> q = queue(withMetrics);
    WeakReference<Object> ref = addAfterFresh(q);
    q.addAfter("other", DELAY);
    assertTrue(q.cancel(ref.get()));
    assertEquals(1, q.waitingCount());
    assertCollected(ref, "the queue still references a cancelled item");
  }

  @ParameterizedTest(name = "metrics={0}")
  @ValueSource(booleans = {false, true})
  void waitingItems_areCollectableAfterShutdownDiscardsThem(boolean withMetrics) {
    DelayingQueue<Object> q = queue(withMetrics);
    WeakReference<Object> first = addAfterFresh(q);
    WeakReference<Object> second = addAfterFresh(q);
    q.shutDown();
    assertEquals(0, q.waitingCount());
    assertFalse(clock.hasWaiters(), "shutdown cancels the wake-up");
    assertCollected(first, "the queue still references a waiting item it discarded");
    assertCollected(second, "the queue still references a waiting item it discarded");
  }

  @Test
  void delayHeap_shrinksAfter100kItemsPassThrough() {
    DelayHeap<Integer> heap = new DelayHeap<>();
    int initial = heap.capacity();
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      heap.offerEarliest(i, i % 1_000);
    }
    assertTrue(heap.capacity() >= n, "grew to hold them all: " + heap.capacity());
    long last = Long.MIN_VALUE;
    for (int i = 0; i < n; i++) {
      long at = heap.headReadyAt();
      assertTrue(at >= last, "ready-time order");
      last = at;
      heap.poll();
    }
    assertTrue(heap.isEmpty());
    assertEquals(initial, heap.capacity(), "shrank back to the minimum");
    assertTrue(heap.checkInvariants());
  }
}
