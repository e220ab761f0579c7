package dev.workqueue.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.workqueue.testing.RecordingSchedulingMetricsProvider.Incoming;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RecordingSchedulingMetricsProviderTest {
  private final RecordingSchedulingMetricsProvider m = new RecordingSchedulingMetricsProvider();

  @Test
  void readsBackEverySeriesByItsLabels_perQueue() {
    m.newPendingItemsMetric("a", "active").set(3);
    m.newPendingItemsMetric("b", "active").set(9);
    m.newUnschedulableItemsMetric("a", "fit").set(2);
    m.newInFlightEventsMetric("a").set(1);
    m.newIncomingItemsMetric("a", "backoff", "NodeAdd").inc();
    m.newIncomingItemsMetric("a", "backoff", "NodeAdd").inc(); // the same series again
    m.newIncomingItemsMetric("a", "active", "PodAdd").inc();

    assertEquals(3.0, m.pending("a", "active"));
    assertEquals(9.0, m.pending("b", "active"));
    assertEquals(0.0, m.pending("a", "backoff"), "never set");
    assertEquals(2.0, m.rejectedBy("a", "fit"));
    assertEquals(1.0, m.inFlightEvents("a"));
    assertEquals(2, m.incoming("a", "backoff", "NodeAdd"));
    assertEquals(0, m.incoming("b", "backoff", "NodeAdd"));
    assertEquals(2.0, m.values().value("a", "unschedulable_items{rejector=fit}"),
        "kept under the name with its labels");
  }

  @Test
  void incoming_listsTheSeriesOfOneQueue_inPartThenEventOrder() {
    m.newIncomingItemsMetric("a", "unschedulable", "Fail").inc();
    m.newIncomingItemsMetric("a", "active", "PodAdd").inc();
    m.newIncomingItemsMetric("a", "active", "BackoffComplete");
    m.newIncomingItemsMetric("b", "active", "PodAdd").inc();
    assertEquals(List.of(new Incoming("active", "BackoffComplete"),
            new Incoming("active", "PodAdd"), new Incoming("unschedulable", "Fail")),
        List.copyOf(m.incoming("a").keySet()));
    assertEquals(List.of(0L, 1L, 1L), List.copyOf(m.incoming("a").values()));
  }

  @Test
  void snapshot_gaugesThenCounters_eachInNameOrder() {
    m.newIncomingItemsMetric("a", "active", "PodAdd").inc();
    m.newPendingItemsMetric("a", "unschedulable").set(4);
    m.newPendingItemsMetric("a", "active").set(1);
    m.newInFlightEventsMetric("a");
    Map<String, Double> snap = m.snapshot("a");
    assertEquals(List.of("in_flight_events", "pending_items{queue=active}",
            "pending_items{queue=unschedulable}",
            "queue_incoming_items_total{queue=active,event=PodAdd}"),
        List.copyOf(snap.keySet()));
    assertEquals(new TreeMap<>(Map.of("in_flight_events", 0.0, "pending_items{queue=active}", 1.0,
        "pending_items{queue=unschedulable}", 4.0,
        "queue_incoming_items_total{queue=active,event=PodAdd}", 1.0)), new TreeMap<>(snap));
    assertEquals(Map.of(), m.snapshot("none"));
    assertEquals(Map.of(), m.incoming("none"));
  }

  @Test
  void sharesAStoreWithTheQueueMetrics() {
    RecordingMetricsProvider store = new RecordingMetricsProvider();
    RecordingSchedulingMetricsProvider shared = new RecordingSchedulingMetricsProvider(store);
    assertSame(store, shared.values());
    shared.newInFlightEventsMetric("q").set(5);
    assertEquals(5.0, store.value("q", "in_flight_events"));
    assertThrows(NullPointerException.class, () -> new RecordingSchedulingMetricsProvider(null));
  }
}
