package dev.workqueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What is specific to the basic queue and its builder. The behaviour every queue kind shares
 * (de-duplication, order, one more round, takes, shutdown and drain, null arguments) is in
 * {@link QueueContractTest}, which runs it against the basic queue as {@link QueueKind#PLAIN}.
 */
class WorkQueueTest {

  @Test
  void builder_rejectsBadArgumentsAtOnce() {
    WorkQueueBuilder<String> b = WorkQueue.builder();
    assertThrows(IllegalArgumentException.class, () -> b.metricsUpdatePeriod(Duration.ZERO));
    assertThrows(IllegalArgumentException.class, () -> b.metricsUpdatePeriod(Duration.ofSeconds(-1)));
    new com.google.common.testing.NullPointerTester().testAllPublicInstanceMethods(b);
  }

  @Test
  void anEmptyName_isNoName_asInClientGo_andRecordsNoMetrics() {
    dev.workqueue.testing.RecordingMetricsProvider metrics =
        new dev.workqueue.testing.RecordingMetricsProvider();
    WorkQueue<String> q = WorkQueue.<String>builder().name("").metricsProvider(metrics).build();
    q.add("x");
    assertEquals(java.util.Set.of(), metrics.queues(), "an unnamed queue records nothing");
    q.shutDown();
  }
}
