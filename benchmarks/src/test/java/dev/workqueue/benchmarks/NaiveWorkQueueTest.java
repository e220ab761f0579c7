package dev.workqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The naive baseline must keep client-go's semantics, or beating it means nothing. */
class NaiveWorkQueueTest {

  @Test
  void addOfQueuedItem_isDeduplicated() {
    NaiveWorkQueue<String> q = new NaiveWorkQueue<>();
    q.add("a");
    q.add("a");
    assertEquals(1, q.size());
  }

  @Test
  void addWhileProcessing_requeuesOnceAtDone() throws InterruptedException {
    NaiveWorkQueue<String> q = new NaiveWorkQueue<>();
    q.add("a");
    assertEquals("a", q.get());
    q.add("a");
    q.add("a");
    assertEquals(0, q.size(), "not handed out twice at once");
    q.done("a");
    assertEquals(1, q.size());
    assertEquals("a", q.tryGet());
    q.done("a");
    assertNull(q.tryGet());
  }

  @Test
  void items_comeOutInFifoOrder() throws InterruptedException {
    NaiveWorkQueue<Integer> q = new NaiveWorkQueue<>();
    for (int i = 0; i < 5; i++) {
      q.add(i);
    }
    for (int i = 0; i < 5; i++) {
      assertEquals(i, q.get());
    }
  }
}
