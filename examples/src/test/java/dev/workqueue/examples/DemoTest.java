package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class DemoTest {

  @Test
  void smallRun_convergesEveryObject_andPrintsTheSummary() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Demo.Summary s = Demo.run(
        Demo.Options.parse("--objects", "40", "--workers", "4", "--failure-rate", "0.3", "--quiet"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(40, s.converged());
    assertTrue(s.failures() > 0, "the backend failed sometimes");
    assertTrue(s.queueRetries() >= s.failures(), "every failure was retried");
    assertTrue(s.reconciles() >= 40 + s.failures());
    assertTrue(out.contains("converged 40/40 objects"), out);
    assertTrue(out.contains("workqueue_queue_duration_seconds"), out);
  }

  /** The number of summary row {@code name} ("  events   600  ..."). */
  private static long row(String out, String name) {
    Matcher m = Pattern.compile("(?m)^  " + name + " +(\\d+)  ").matcher(out);
    assertTrue(m.find(), "a summary row " + name + " in\n" + out);
    return Long.parseLong(m.group(1));
  }

  private static long lines(String out, String regex) {
    return Pattern.compile("(?m)^ *\\d+ ms  " + regex).matcher(out).results().count();
  }

  private static final Pattern PROGRESS = Pattern.compile("(?m)^ *\\d+ ms  progress +events"
      + " (\\d+) = added (\\d+) \\+ merged (\\d+) \\| reconciles (\\d+) \\((\\d+) failed\\)"
      + " \\| retries (\\d+) \\| queue now: \\d+ ready, \\d+ backing off, \\d+ reconciling$");

  @Test
  void output_showsEventsAddsMergesAndRetries_asPlainLines_andTheCountsAddUp() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Demo.Summary s = Demo.run(
        Demo.Options.parse("--objects", "40", "--workers", "4", "--failure-rate", "0.3"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertFalse(out.contains("\r"), "plain lines, no carriage returns");

    // The summary: events = added + merged; every queue add (by an event or by a retry whose
    // back-off ended) is reconciled once; every failure is retried.
    assertEquals(40, s.converged());
    assertEquals(40 * 3, s.events(), "a create and two updates per object");
    assertEquals(s.events(), row(out, "events"));
    assertEquals(s.added(), row(out, "added"));
    assertEquals(s.merged(), row(out, "merged"));
    assertEquals(row(out, "events"), row(out, "added") + row(out, "merged"), out);
    assertTrue(s.added() >= 40, "each object's create finds its key not queued: " + s);
    assertTrue(s.merged() > 0, "events in a burst find their key queued: " + s);
    assertEquals(s.reconciles(), row(out, "reconciles"));
    assertEquals(s.queueAdds(), row(out, "queue adds"));
    assertEquals(s.queueRetries(), row(out, "retries"));
    assertEquals(s.queueAdds(), s.reconciles(), "one reconcile per queue add: " + s);
    assertTrue(s.reconciles() >= s.added(), s.toString());
    assertTrue(s.queueAdds() - s.added() <= s.queueRetries(), "the other adds are retries");
    assertEquals(s.failures(), s.queueRetries(), "every failure retried, none dropped");
    assertTrue(out.contains(String.format("%d succeeded + %d failed",
        s.reconciles() - s.failures(), s.failures())), out);
    assertTrue(out.contains("converged 40/40 objects"), out);

    // The followed keys: every event, with what the queue did with it.
    assertEquals(3, lines(out, "event +default/object-0 "), out);
    assertEquals(3, lines(out, "event +default/object-1 "), out);
    assertEquals(1, lines(out, "event +default/object-0 +create \\(generation 1\\) -> added: "),
        out);
    // The flaky key's back-off doubles per failure (few failures: the overall bucket is full).
    for (String attempt : List.of("1\\); retry in 5 ms", "2\\); retry in 10 ms",
        "3\\); retry in 20 ms")) {
      assertEquals(1, lines(out, "retry +default/object-0 +failed \\(attempt " + attempt
          + " \\(the key's back-off\\)$"), out);
    }
    assertEquals(1, lines(out, "reconcile +default/object-0 +applied generation \\d \\(attempt 4\\);"
        + " its back-off is forgotten$"), out);
    // Other keys' retries: sampled, at most 3 per attempt number, and said so.
    String other = "retry +default/object-([2-9]|\\d\\d) +failed \\(attempt ";
    assertTrue(lines(out, other + "1\\)") >= 1, out);
    for (int attempt = 1; attempt <= 10; attempt++) {
      assertTrue(lines(out, other + attempt + "\\)") <= DemoLog.SAMPLED_RETRIES_PER_ATTEMPT, out);
    }
    assertTrue(lines(out, other) < s.queueRetries() - 3 || !out.contains("not printed"), out);

    // Progress lines, the last one after the end: the same counts as the summary.
    List<MatchResult> progress = PROGRESS.matcher(out).results().toList();
    assertFalse(progress.isEmpty(), out);
    MatchResult last = progress.get(progress.size() - 1);
    assertEquals(s.events(), Long.parseLong(last.group(1)));
    assertEquals(s.added(), Long.parseLong(last.group(2)));
    assertEquals(s.merged(), Long.parseLong(last.group(3)));
    assertEquals(s.reconciles(), Long.parseLong(last.group(4)));
    assertEquals(s.failures(), Long.parseLong(last.group(5)));
    assertEquals(s.queueRetries(), Long.parseLong(last.group(6)));
  }

  @Test
  void quiet_printsOnlyTheSummary() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Demo.run(Demo.Options.parse("--objects", "10", "--quiet"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(0, lines(out, ""), out);
    assertTrue(out.startsWith("converged 10/10 objects"), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--objects", "0"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--failure-rate", "1"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--bogus", "1"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--metrics-port", "-1"));
    assertThrows(IllegalArgumentException.class,
        () -> Demo.Options.parse("--metrics-port", "65536"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--linger"));
    Demo.Options o = Demo.Options.parse("--metrics-port", "0", "--linger");
    assertEquals(0, o.metricsPort());
    assertTrue(o.linger());
    assertEquals(-1, Demo.Options.parse().metricsPort(), "no endpoint unless asked for");
  }

  private static final Pattern URL = Pattern.compile("serving (http://127\\.0\\.0\\.1:\\d+/metrics) until");

  /** The value of the sample line that starts with {@code series} (name and labels). */
  private static double sample(String scrape, String series) {
    for (String line : scrape.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1));
      }
    }
    throw new AssertionError("no sample " + series + " in\n" + scrape);
  }

  @Test
  void metricsPort_servesPrometheusTextOnLoopback_andStopsWithTheDemo() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread demo = new Thread(() -> {
      try {
        outcome.set(Demo.run(Demo.Options.parse("--objects", "30", "--workers", "2",
            "--failure-rate", "0.2", "--quiet", "--metrics-port", "0", "--linger"), out));
      } catch (Throwable t) {
        outcome.set(t);
      }
    }, "demo-under-test");
    demo.start();
    await().atMost(30, SECONDS).until(() -> URL.matcher(bytes.toString(StandardCharsets.UTF_8)).find()
        || !demo.isAlive());
    Matcher m = URL.matcher(bytes.toString(StandardCharsets.UTF_8));
    assertTrue(m.find(), "the demo said where it serves: " + bytes + " " + outcome.get());
    URI uri = URI.create(m.group(1));

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
    String body = r.body();
    for (String name : List.of("workqueue_depth", "workqueue_adds_total",
        "workqueue_queue_duration_seconds_bucket", "workqueue_work_duration_seconds_count",
        "workqueue_unfinished_work_seconds", "workqueue_longest_running_processor_seconds",
        "workqueue_retries_total")) {
      assertTrue(body.contains(name + "{name=\"demo\""), name + " of the demo's queue in\n" + body);
    }
    assertTrue(sample(body, "workqueue_adds_total{name=\"demo\"}") >= 30, "every object was added");
    assertEquals(0, sample(body, "workqueue_depth{name=\"demo\"}"), "converged: nothing queued");
    assertTrue(sample(body, "controller_runtime_reconcile_total{controller=\"demo\",result=\"success\"}") >= 30);
    assertEquals(2, sample(body, "controller_runtime_max_concurrent_reconciles{controller=\"demo\"}"));
    assertEquals(404, http.send(HttpRequest.newBuilder(uri.resolve("/nope")).build(),
        HttpResponse.BodyHandlers.discarding()).statusCode());

    demo.interrupt(); // the demo's signal to stop lingering
    demo.join(SECONDS.toMillis(10));
    assertFalse(demo.isAlive());
    assertTrue(outcome.get() instanceof Demo.Summary, String.valueOf(outcome.get()));
    Demo.Summary s = (Demo.Summary) outcome.get();
    assertEquals(30, s.converged());
    assertEquals((double) s.queueRetries(), sample(body, "workqueue_retries_total{name=\"demo\"}"),
        "the scrape and the in-memory summary saw the same retries");
    assertThrows(ConnectException.class, () -> http.send(HttpRequest.newBuilder(uri).build(),
        HttpResponse.BodyHandlers.discarding()), "no longer listening");
    await().atMost(10, SECONDS).until(() -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().equals("demo-metrics-http")
            || t.getName().equals("HTTP-Dispatcher")));
  }
}
