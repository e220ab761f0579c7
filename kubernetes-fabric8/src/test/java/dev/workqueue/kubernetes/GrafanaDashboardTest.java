package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.workqueue.controller.Result;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.metrics.micrometer.MicrometerMetricsProvider;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Grafana dashboard that ships in {@code metrics-micrometer/grafana} asks only for what the
 * toolkit really publishes: every metric its queries name, and every label they select or group
 * by, is in the Prometheus scrape of running controllers (one leader-elected, one sharded, both
 * with the Micrometer provider), and the dashboard covers each figure an operator watches.
 */
@Timeout(120)
class GrafanaDashboardTest {
  static final Path DASHBOARD = Path.of("..", "metrics-micrometer", "grafana",
      "workqueue-controllers.json");
  /** Labels the Prometheus server adds to every series it scrapes; the text never has them. */
  private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
  /** What the dashboard must show: depth, adds, both durations, retries, outcomes, leader, ring. */
  private static final Set<String> COVERED = Set.of("workqueue_depth", "workqueue_adds_total",
      "workqueue_queue_duration_seconds_bucket", "workqueue_work_duration_seconds_bucket",
      "workqueue_retries_total", "controller_runtime_reconcile_total",
      "controller_runtime_reconcile_errors_total", "controller_runtime_reconcile_time_seconds_bucket",
      "leader_election_master_status", "workqueue_shard_members",
      "workqueue_shard_handovers_total", "workqueue_shard_handover_duration_seconds_bucket");

  private final List<KubernetesController<ConfigMap>> started = new ArrayList<>();
  private MockApiServer apiServer;

  @AfterEach
  void tearDown() throws InterruptedException {
    for (KubernetesController<ConfigMap> c : started) {
      c.stop(Duration.ofSeconds(5));
    }
    if (apiServer != null) {
      apiServer.close();
    }
  }

  @Test
  void everyMetricAndLabelTheDashboardQueries_isInTheScrapeOfRunningControllers()
      throws Exception {
    Map<String, Set<String>> scraped = labelsBySampleName(scrapeOfTwoControllers());
    List<String> problems = new ArrayList<>();
    Set<String> named = new TreeSet<>();
    for (String expr : queries(new ObjectMapper().readTree(DASHBOARD.toFile()))) {
      PromQuery q = PromQuery.parse(expr);
      named.addAll(q.metrics());
      problems.addAll(q.problemsAgainst(scraped, TARGET_LABELS));
    }
    assertEquals(List.of(), problems, "the dashboard asks for what the toolkit does not publish");
    Set<String> missing = new TreeSet<>(COVERED);
    missing.removeAll(named);
    assertEquals(Set.of(), missing, "figures the dashboard does not show");
  }

  @Test
  void theDashboardIsWellFormed_panelsWithUniqueIdsQueriesAndNoOverlap() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertEquals("workqueue-controllers", dashboard.path("uid").asText());
    Set<Integer> ids = new TreeSet<>();
    List<int[]> boxes = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      assertTrue(ids.add(p.path("id").asInt()), "a second panel with id " + p.path("id"));
      JsonNode g = p.path("gridPos");
      int[] box = {g.path("x").asInt(), g.path("y").asInt(), g.path("w").asInt(),
          g.path("h").asInt()};
      assertTrue(box[0] + box[2] <= 24 && box[2] > 0 && box[3] > 0, p.path("title") + " fits");
      for (int[] other : boxes) {
        boolean apart = box[0] + box[2] <= other[0] || other[0] + other[2] <= box[0]
            || box[1] + box[3] <= other[1] || other[1] + other[3] <= box[1];
        assertTrue(apart, p.path("title") + " overlaps another panel");
      }
      boxes.add(box);
      if (!"row".equals(p.path("type").asText())) {
        assertTrue(p.path("targets").size() > 0, p.path("title") + " has no query");
      }
    }
  }

  @Test
  void theCheck_reportsAnUnpublishedMetric_anUnknownMatcherLabel_andAnUnknownGrouping() {
    Map<String, Set<String>> scraped = Map.of("workqueue_depth", Set.of("name"),
        "workqueue_work_duration_seconds_bucket", Set.of("name", "le"));
    assertEquals(List.of(), PromQuery.parse("histogram_quantile(0.9, sum by (name, le) "
        + "(rate(workqueue_work_duration_seconds_bucket{name=~\"$q\"}[5m]))) "
        + "and on (instance) workqueue_depth").problemsAgainst(scraped, TARGET_LABELS));
    assertEquals(List.of("workqueue_adds_total is not published (in: rate(workqueue_adds_total"
        + "[1m]))"), PromQuery.parse("rate(workqueue_adds_total[1m])")
        .problemsAgainst(scraped, TARGET_LABELS));
    assertEquals(List.of("workqueue_depth has no label queue (in: workqueue_depth{queue=\"a\"})"),
        PromQuery.parse("workqueue_depth{queue=\"a\"}").problemsAgainst(scraped, TARGET_LABELS));
    assertEquals(List.of("no metric has the label namespace (in: sum by (namespace) "
        + "(workqueue_depth))"), PromQuery.parse("sum by (namespace) (workqueue_depth)")
        .problemsAgainst(scraped, TARGET_LABELS));
    assertEquals(Set.of("workqueue_depth"),
        PromQuery.parse("label_values(workqueue_depth, name)").metrics());
  }

  /** The queries of every panel and every templating variable. */
  static List<String> queries(JsonNode dashboard) {
    List<String> out = new ArrayList<>();
    for (JsonNode p : dashboard.path("panels")) {
      p.path("targets").forEach(t -> out.add(t.path("expr").asText()));
    }
    for (JsonNode v : dashboard.path("templating").path("list")) {
      if ("query".equals(v.path("type").asText())) {
        out.add(v.path("query").path("query").asText());
      }
    }
    return out;
  }

  /**
   * A leader-elected and a sharded controller on the mock API server, each past one reconcile,
   * scraped through one Prometheus registry.
   */
  private String scrapeOfTwoControllers() throws Exception {
    apiServer = new MockApiServer();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MicrometerMetricsProvider metrics = MicrometerMetricsProvider.create(registry);
    AtomicInteger reconciles = new AtomicInteger();
    started.add(KubernetesController.builder(apiServer.newClient(), ConfigMap.class)
        .name("led").inNamespace(NS)
        .leaderElection(LeaderElection.lease(NS, "led-leader").withIdentity("a"))
        .metricsProvider(metrics).controller(c -> c.queueMetricsProvider(metrics))
        .reconciler(r -> count(reconciles)).build());
    started.add(KubernetesController.builder(apiServer.newClient(), ConfigMap.class)
        .name("sharded").inNamespace(NS).sharding(Sharding.ring(NS, "ring", "a"))
        .metricsProvider(metrics).controller(c -> c.queueMetricsProvider(metrics))
        .reconciler(r -> count(reconciles)).build());
    for (KubernetesController<ConfigMap> c : started) {
      c.start();
    }
    apiServer.newClient().configMaps().inNamespace(NS)
        .resource(SecretCopies.source("one", "1")).create();
    await().atMost(Duration.ofSeconds(60)).until(() -> reconciles.get() >= 2);
    return registry.scrape();
  }

  private static Result count(AtomicInteger reconciles) {
    reconciles.incrementAndGet();
    return Result.success();
  }

  /** Each sample name of the scrape (buckets, counts and sums included) and its labels. */
  private static Map<String, Set<String>> labelsBySampleName(String scrape) {
    Map<String, Set<String>> out = new HashMap<>();
    for (PrometheusText.Family f : PrometheusText.parse(scrape).values()) {
      for (PrometheusText.Sample s : f.samples()) {
        out.computeIfAbsent(s.name(), k -> new TreeSet<>()).addAll(s.labels().keySet());
      }
    }
    return out;
  }
}
