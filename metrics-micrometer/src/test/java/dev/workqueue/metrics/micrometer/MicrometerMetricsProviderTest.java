package dev.workqueue.metrics.micrometer;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.scheduling.ClusterEvent;
import dev.workqueue.scheduling.PoppedItem;
import dev.workqueue.scheduling.Rejectors;
import dev.workqueue.scheduling.Resource;
import dev.workqueue.scheduling.SchedulingMetricsProvider;
import dev.workqueue.scheduling.SchedulingQueue;
import com.google.common.testing.NullPointerTester;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MicrometerMetricsProviderTest {
  private static final double EPS = 1e-9;
  private final FakeClock clock = new FakeClock();
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final MicrometerMetricsProvider metrics = MicrometerMetricsProvider.create(registry);

  private PrometheusText scrape() {
    return new PrometheusText(registry.scrape());
  }

  private RateLimitingQueue<String> rateLimiting(String name) {
    return WorkQueue.<String>builder().name(name).clock(clock).metricsProvider(metrics)
        .buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(10)));
  }

  private static String take(WorkQueue<String> q) throws InterruptedException {
    return q.poll(Duration.ZERO).orElseThrow();
  }

  @Test
  void rateLimitingQueueOnAFakeClock_scrapesTheExactValues() throws Exception {
    RateLimitingQueue<String> q = rateLimiting("jobs");
    q.add("a");
    q.add("b");
    q.add("a"); // deduplicated: not an add
    clock.stepMillis(100);
    assertEquals("a", take(q)); // queued 0.1 s
    clock.stepMillis(200);
    assertEquals("b", take(q)); // queued 0.3 s
    clock.stepMillis(300); // t = 600 ms: the refresh, 500 ms after the first get

    PrometheusText s = scrape();
    assertEquals(2, s.value("workqueue_adds_total", "name", "jobs"));
    assertEquals(0, s.value("workqueue_depth", "name", "jobs"));
    assertEquals(0.5 + 0.3, s.value("workqueue_unfinished_work_seconds", "name", "jobs"), EPS);
    assertEquals(0.5, s.value("workqueue_longest_running_processor_seconds", "name", "jobs"), EPS);

    q.done("a"); // worked 0.5 s
    q.addRateLimited("a"); // a retry: ready again after 5 ms
    clock.stepMillis(5);
    q.done("b"); // worked 0.305 s

    s = scrape();
    assertEquals(3, s.value("workqueue_adds_total", "name", "jobs"), "the retry made a dirty");
    assertEquals(1, s.value("workqueue_depth", "name", "jobs"));
    assertEquals(1, s.value("workqueue_retries_total", "name", "jobs"));

    String queued = "workqueue_queue_duration_seconds";
    assertEquals(2, s.value(queued + "_count", "name", "jobs"));
    assertEquals(0.1 + 0.3, s.value(queued + "_sum", "name", "jobs"), EPS);
    assertEquals(0, s.value(queued + "_bucket", "name", "jobs", "le", "0.01"));
    assertEquals(1, s.value(queued + "_bucket", "name", "jobs", "le", "0.1"), "le is inclusive");
    assertEquals(2, s.value(queued + "_bucket", "name", "jobs", "le", "1.0"));
    assertEquals(2, s.value(queued + "_bucket", "name", "jobs", "le", "+Inf"));

    String worked = "workqueue_work_duration_seconds";
    assertEquals(2, s.value(worked + "_count", "name", "jobs"));
    assertEquals(0.5 + 0.305, s.value(worked + "_sum", "name", "jobs"), EPS);
    assertEquals(0, s.value(worked + "_bucket", "name", "jobs", "le", "0.1"));
    assertEquals(2, s.value(worked + "_bucket", "name", "jobs", "le", "1.0"));

    clock.stepMillis(500); // the next refresh: nothing processing
    s = scrape();
    assertEquals(0, s.value("workqueue_unfinished_work_seconds", "name", "jobs"));
    assertEquals(0, s.value("workqueue_longest_running_processor_seconds", "name", "jobs"));
  }

  @Test
  void queueHistograms_haveControllerRuntimesBuckets_andReconcileTimeItsOwn() {
    metrics.newLatencyMetric("q").observe(1);
    metrics.newReconcileTime("c").observe(1);
    PrometheusText s = scrape();
    assertEquals(java.util.List.of("1.0E-8", "1.0E-7", "1.0E-6", "1.0E-5", "1.0E-4", "0.001",
            "0.01", "0.1", "1.0", "10.0", "100.0", "1000.0", "+Inf"),
        s.find("workqueue_queue_duration_seconds_bucket").stream()
            .map(x -> x.labels().get("le")).toList());
    java.util.List<Double> reconcileBounds = s.find("controller_runtime_reconcile_time_seconds_bucket")
        .stream().map(x -> x.labels().get("le")).filter(le -> !le.equals("+Inf"))
        .map(Double::valueOf).toList();
    assertEquals(40, reconcileBounds.size(), reconcileBounds.toString());
    assertEquals(0.005, reconcileBounds.get(0));
    assertTrue(reconcileBounds.containsAll(java.util.List.of(0.15, 1.25, 4.5, 15.0, 60.0)));
    assertEquals(60.0, reconcileBounds.get(39));
  }

  @Test
  void scrapedNames_areExactlyTheNamesGoControllersExport() {
    for (String result : java.util.List.of("success", "error")) {
      metrics.newReconcileTotal("c", result);
    }
    everyFactory("q", "c");
    Map<String, String> expected = new TreeMap<>();
    expected.put(MetricsProvider.DEPTH, "gauge");
    expected.put(MetricsProvider.ADDS, "counter");
    expected.put(MetricsProvider.QUEUE_DURATION, "histogram");
    expected.put(MetricsProvider.WORK_DURATION, "histogram");
    expected.put(MetricsProvider.UNFINISHED_WORK, "gauge");
    expected.put(MetricsProvider.LONGEST_RUNNING, "gauge");
    expected.put(MetricsProvider.RETRIES, "counter");
    expected.put(ControllerMetricsProvider.RECONCILE_TOTAL, "counter");
    expected.put(ControllerMetricsProvider.RECONCILE_ERRORS, "counter");
    expected.put(ControllerMetricsProvider.TERMINAL_RECONCILE_ERRORS, "counter");
    expected.put(ControllerMetricsProvider.RECONCILE_PANICS, "counter");
    expected.put(ControllerMetricsProvider.RECONCILE_TIME, "histogram");
    expected.put(ControllerMetricsProvider.ACTIVE_WORKERS, "gauge");
    expected.put(ControllerMetricsProvider.MAX_CONCURRENT_RECONCILES, "gauge");
    expected.put(ControllerMetricsProvider.LEADER_ELECTION_MASTER_STATUS, "gauge");
    expected.put("scheduler_" + SchedulingMetricsProvider.PENDING_ITEMS, "gauge");
    expected.put("scheduler_" + SchedulingMetricsProvider.INCOMING_ITEMS, "counter");
    expected.put("scheduler_" + SchedulingMetricsProvider.UNSCHEDULABLE_ITEMS, "gauge");
    expected.put("scheduler_" + SchedulingMetricsProvider.IN_FLIGHT_EVENTS, "gauge");
    // Micrometer's own, beside each timer.
    expected.put(MetricsProvider.QUEUE_DURATION + "_max", "gauge");
    expected.put(MetricsProvider.WORK_DURATION + "_max", "gauge");
    expected.put(ControllerMetricsProvider.RECONCILE_TIME + "_max", "gauge");

    assertEquals(expected, new TreeMap<>(scrape().types));
    assertEquals("workqueue_depth,workqueue_adds_total,workqueue_queue_duration_seconds,"
            + "workqueue_work_duration_seconds,workqueue_unfinished_work_seconds,"
            + "workqueue_longest_running_processor_seconds,workqueue_retries_total",
        String.join(",", MetricsProvider.DEPTH, MetricsProvider.ADDS,
            MetricsProvider.QUEUE_DURATION, MetricsProvider.WORK_DURATION,
            MetricsProvider.UNFINISHED_WORK, MetricsProvider.LONGEST_RUNNING,
            MetricsProvider.RETRIES), "the SPI constants are the Go names");
  }

  private void everyFactory(String queue, String controller) {
    metrics.newDepthMetric(queue).set(1);
    metrics.newAddsMetric(queue).inc();
    metrics.newLatencyMetric(queue).observe(0.001);
    metrics.newWorkDurationMetric(queue).observe(0.001);
    metrics.newUnfinishedWorkSecondsMetric(queue).set(1);
    metrics.newLongestRunningProcessorSecondsMetric(queue).set(1);
    metrics.newRetriesMetric(queue).inc();
    metrics.newReconcileErrors(controller).inc();
    metrics.newTerminalReconcileErrors(controller).inc();
    metrics.newReconcilePanics(controller).inc();
    metrics.newReconcileTime(controller).observe(0.001);
    metrics.newActiveWorkers(controller).set(1);
    metrics.newMaxConcurrentReconciles(controller).set(1);
    metrics.newLeaderElectionMasterStatus("lease").set(1);
    metrics.newPendingItemsMetric(queue, "active").set(1);
    metrics.newIncomingItemsMetric(queue, "active", "ItemAdd").inc();
    metrics.newUnschedulableItemsMetric(queue, "fit").set(1);
    metrics.newInFlightEventsMetric(queue).set(1);
  }

  @Test
  void controller_publishesControllerRuntimeMetrics_andItsQueues() throws Exception {
    Controller<String> c = Controller.<String>builder("ctl").workers(1).clock(clock)
        .queueMetricsProvider(metrics).metricsProvider(metrics)
        .reconciler(key -> switch (key) {
          case "ok" -> {
            clock.stepMillis(150); // a reconcile that takes 150 ms
            yield Result.success();
          }
          case "later" -> Result.requeueAfter(Duration.ofHours(1));
          default -> Result.requeue();
        })
        .build();
    c.start();
    try {
      c.add("ok");
      c.add("later");
      c.add("again");
      await().atMost(10, SECONDS).until(() ->
          scrape().find("controller_runtime_reconcile_time_seconds_count").stream()
              .anyMatch(x -> x.value() == 3));
    } finally {
      c.stop(Duration.ofSeconds(10));
    }
    PrometheusText s = scrape();
    String total = "controller_runtime_reconcile_total";
    assertEquals(1, s.value(total, "controller", "ctl", "result", "success"));
    assertEquals(1, s.value(total, "controller", "ctl", "result", "requeue_after"));
    assertEquals(1, s.value(total, "controller", "ctl", "result", "requeue"));
    assertEquals(0, s.value(total, "controller", "ctl", "result", "error"));
    assertEquals(0, s.value("controller_runtime_reconcile_errors_total", "controller", "ctl"));
    assertEquals(0, s.value("controller_runtime_terminal_reconcile_errors_total", "controller", "ctl"));
    assertEquals(0, s.value("controller_runtime_reconcile_panics_total", "controller", "ctl"));
    String time = "controller_runtime_reconcile_time_seconds";
    assertEquals(0.15, s.value(time + "_sum", "controller", "ctl"), EPS);
    assertEquals(2, s.value(time + "_bucket", "controller", "ctl", "le", "0.005"));
    assertEquals(3, s.value(time + "_bucket", "controller", "ctl", "le", "0.15"));
    assertEquals(0, s.value("controller_runtime_active_workers", "controller", "ctl"));
    assertEquals(1, s.value("controller_runtime_max_concurrent_reconciles", "controller", "ctl"));
    assertEquals(3, s.value("workqueue_adds_total", "name", "ctl"), "the controller's queue");
    assertEquals(2, s.value("workqueue_retries_total", "name", "ctl"), "requeue and requeue_after");
  }

  @Test
  void schedulingQueue_publishesSchedulerMetrics() throws Exception {
    ClusterEvent nodeAdd = ClusterEvent.of(Resource.of("node"), ClusterEvent.ADD);
    SchedulingQueue<String, String> q = SchedulingQueue.<String, String>builder(s -> s)
        .name("placer").clock(clock).metricsProvider(metrics).hint("fit", nodeAdd).build();
    try {
      q.add("x");
      q.add("y");
      PoppedItem<String, String> x = q.pop().orElseThrow();
      q.onEvent(ClusterEvent.of(Resource.of("volume"), ClusterEvent.ADD), null, null);
      q.requeueFailed(x, Rejectors.unschedulable("fit")); // no helpful event: the pool

      PrometheusText s = scrape();
      String pending = "scheduler_pending_items";
      assertEquals(1, s.value(pending, "name", "placer", "queue", "active"));
      assertEquals(0, s.value(pending, "name", "placer", "queue", "backoff"));
      assertEquals(1, s.value(pending, "name", "placer", "queue", "unschedulable"));
      assertEquals(0, s.value(pending, "name", "placer", "queue", "gated"));
      String incoming = "scheduler_queue_incoming_items_total";
      assertEquals(2, s.value(incoming, "name", "placer", "queue", "active", "event",
          ClusterEvent.ITEM_ADD));
      assertEquals(1, s.value(incoming, "name", "placer", "queue", "unschedulable", "event",
          "ScheduleAttemptFailure"));
      assertEquals(1, s.value("scheduler_unschedulable_items", "name", "placer", "rejector", "fit"));
      assertEquals(0, s.value("scheduler_in_flight_events", "name", "placer"));
    } finally {
      q.close();
    }
  }

  @Test
  void remove_dropsTheMetersOfThatNameOnly_andANewQueueStartsFresh() throws Exception {
    WorkQueue<String> jobs = rateLimiting("jobs");
    WorkQueue<String> other = rateLimiting("other");
    jobs.add("a");
    other.add("a");
    jobs.shutDown();

    assertEquals(7, metrics.remove("jobs"));
    assertEquals(0, metrics.remove("jobs"), "idempotent");
    PrometheusText s = scrape();
    assertEquals(0, s.samples.stream().filter(x -> "jobs".equals(x.labels().get("name"))).count());
    assertEquals(1, s.value("workqueue_adds_total", "name", "other"));

    WorkQueue<String> again = rateLimiting("jobs");
    again.add("b");
    again.add("c");
    assertEquals(2, scrape().value("workqueue_adds_total", "name", "jobs"));
  }

  /**
   * A queue made under a name while {@code remove} of that name runs (a controller restarted
   * under the same name) must get meters that are published: not the old ones, which the
   * removal takes out of the registry a moment later or has already taken out. The registry's
   * {@code remove} here stops after taking the old meter out, so the new queue's registration
   * comes in that window.
   */
  @Test
  void remove_racingANewQueueOfThatName_leavesTheNewQueuesMetersPublished() throws Exception {
    java.util.concurrent.CountDownLatch removing = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch proceed = new java.util.concurrent.CountDownLatch(1);
    PrometheusMeterRegistry slow = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) {
      @Override
      public io.micrometer.core.instrument.Meter remove(io.micrometer.core.instrument.Meter m) {
        io.micrometer.core.instrument.Meter gone = super.remove(m);
        removing.countDown();
        try {
          proceed.await(10, SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return gone;
      }
    };
    MicrometerMetricsProvider provider = MicrometerMetricsProvider.create(slow);
    provider.newAddsMetric("jobs").inc();

    Thread remover = new Thread(() -> provider.remove("jobs"), "remover");
    remover.start();
    assertTrue(removing.await(10, SECONDS));
    java.util.concurrent.atomic.AtomicReference<dev.workqueue.metrics.Counter> fresh =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread maker = new Thread(() -> fresh.set(provider.newAddsMetric("jobs")), "new queue");
    maker.start();
    // the new queue either has its counter already or waits for the removal to finish
    await().atMost(10, SECONDS)
        .until(() -> fresh.get() != null || maker.getState() == Thread.State.BLOCKED);
    proceed.countDown();
    remover.join(10_000);
    maker.join(10_000);

    fresh.get().inc();
    fresh.get().inc();
    io.micrometer.core.instrument.Counter published =
        slow.find("workqueue.adds").tag("name", "jobs").counter();
    assertTrue(published != null, "the new queue's adds counter is not in the registry");
    assertEquals(2.0, published.count(), "the new queue counts into a meter nobody publishes");
  }

  @Test
  void queuesSharingAName_shareTheirSeries() {
    WorkQueue<String> first = rateLimiting("shared");
    WorkQueue<String> second = rateLimiting("shared");
    first.add("a");
    first.add("b");
    second.add("c");
    PrometheusText s = scrape();
    assertEquals(3, s.value("workqueue_adds_total", "name", "shared"));
    assertEquals(1, s.value("workqueue_depth", "name", "shared"), "the last value set");
  }

  @Test
  void aDiscardedQueue_isCollectable_whileItsMetersStayPublished() throws Exception {
    WeakReference<WorkQueue<String>> ref = usedAndShutDown("gone");
    for (int i = 0; i < 50 && ref.get() != null; i++) {
      System.gc();
      Thread.onSpinWait();
    }
    assertNull(ref.get(), "neither the registry nor the provider holds the queue");
    assertEquals(1, scrape().value("workqueue_adds_total", "name", "gone"));
    assertEquals(1, scrape().value("workqueue_depth", "name", "gone"), "its last value");
  }

  private WeakReference<WorkQueue<String>> usedAndShutDown(String name) throws Exception {
    RateLimitingQueue<String> q = rateLimiting(name);
    q.add("a");
    q.addRateLimited("b");
    q.shutDown();
    return new WeakReference<>(q);
  }

  @Test
  void meterNames_dropTheSuffixThePrometheusConventionAddsBack() {
    assertEquals("workqueue.adds", MicrometerMetricsProvider.meterName("workqueue_adds_total"));
    assertEquals("workqueue.queue.duration",
        MicrometerMetricsProvider.meterName("workqueue_queue_duration_seconds"));
    assertEquals("controller.runtime.active.workers",
        MicrometerMetricsProvider.meterName("controller_runtime_active_workers"));
    assertEquals(100_000_000L, MicrometerMetricsProvider.toNanos(0.1));
    assertEquals(Long.MAX_VALUE, MicrometerMetricsProvider.toNanos(1e300));
    assertEquals(0, MicrometerMetricsProvider.toNanos(Double.NaN));
  }

  @Test
  void nullArguments_areRejected() {
    NullPointerTester t = new NullPointerTester()
        .setDefault(io.micrometer.core.instrument.MeterRegistry.class, registry);
    t.testAllPublicStaticMethods(MicrometerMetricsProvider.class);
    t.testAllPublicInstanceMethods(metrics);
  }
}
