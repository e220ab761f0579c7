package dev.workqueue.benchmarks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * PERF.md's memory bar for the priority queue, checked where a measurement is exact: JOL's
 * retained sizes, not a timed run (the same measurement as {@link QueuedMemoryBenchmark}, with
 * fewer keys).
 */
class QueuedMemoryTest {
  private static final int KEYS = 1 << 12;

  @Test
  void aQueuedKey_costsAPriorityQueueAtMostOnePointTwoTimesWhatItCostsTheFifoQueue() {
    double fifo = QueuedMemoryBenchmark.bytesPerKey("fifo", KEYS);
    double priority = QueuedMemoryBenchmark.bytesPerKey("priority", KEYS);

    assertTrue(priority <= 1.2 * fifo,
        String.format("priority %.1f B per key, FIFO %.1f B: %.2fx", priority, fifo,
            priority / fifo));
  }
}
