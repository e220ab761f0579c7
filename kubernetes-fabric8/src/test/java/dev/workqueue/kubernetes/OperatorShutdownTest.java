package dev.workqueue.kubernetes;

import static dev.workqueue.kubernetes.SecretCopies.NS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.kubernetes.testing.MockApiServer;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SIGTERM to a child JVM running {@link OperatorMain} against the mock API server: the process
 * stops taking keys, gives the reconcile in flight the budget, and exits within the budget plus
 * the JVM's and the release's slack. A reconcile that finishes in time lets the Lease go (its
 * holder is emptied at once); one cut at the budget leaves the Lease to expire.
 */
@Timeout(120)
class OperatorShutdownTest {
  private static final long BUDGET_MILLIS = 3000;
  private static final Duration SLACK = Duration.ofSeconds(10); // the JVM's exit, the release

  private final MockApiServer server = new MockApiServer();
  private final KubernetesClient admin = server.newClient();
  private final List<String> output = new CopyOnWriteArrayList<>();
  private Process child;

  @AfterEach
  void tearDown() throws InterruptedException {
    if (child != null && child.isAlive()) {
      child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    server.close();
  }

  @ParameterizedTest(name = "a reconcile of {0} ms, {1}")
  @CsvSource({"1000, finished: the Lease is released", "60000, cut: the Lease is left to expire"})
  void sigterm_endsTheReconcileInFlightWithinTheBudget_andReleasesTheLeaseOnlyIfItFinished(
      long reconcileMillis, String outcome) throws Exception {
    String url = "http://127.0.0.1:" + server.newLink().port();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        OperatorMain.class.getName(), url, "child", Long.toString(reconcileMillis),
        Long.toString(BUDGET_MILLIS)).redirectErrorStream(true).start();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          output.add(line);
        }
      } catch (java.io.IOException e) {
        output.add("(the output ended: " + e + ")");
      }
    }, "test-child-output");
    reader.setDaemon(true);
    reader.start();

    await().atMost(Duration.ofSeconds(60)).until(() -> output.contains("LEADING"));
    assertEquals("child", holder(), "the child leads: " + output);
    admin.configMaps().inNamespace(NS).resource(SecretCopies.source("inflight", "1")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> output.contains("RECONCILING inflight"));

    long sent = System.nanoTime();
    child.toHandle().destroy(); // SIGTERM (Process.destroy would also close its output here)
    assertTrue(child.waitFor(BUDGET_MILLIS + SLACK.toMillis(), TimeUnit.MILLISECONDS),
        "exits within the budget and the slack: " + output);
    Duration took = Duration.ofNanos(System.nanoTime() - sent);
    reader.join(5000);

    if (reconcileMillis < BUDGET_MILLIS) {
      assertTrue(output.contains("FINISHED inflight"), "finished within the budget: " + output);
      assertEquals(null, emptyToNull(holder()), "released: a reconcile of " + reconcileMillis
          + " ms ended within the budget (took " + took + "): " + output);
    } else {
      assertTrue(output.contains("CUT inflight"), "interrupted at the budget: " + output);
      assertFalse(output.contains("FINISHED inflight"), output.toString());
      assertEquals("child", holder(), "not released while a reconcile ran at the deadline");
    }
  }

  private String holder() {
    Lease lease = admin.leases().inNamespace(NS).withName(OperatorMain.LEASE).get();
    return lease == null ? null : lease.getSpec().getHolderIdentity();
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
