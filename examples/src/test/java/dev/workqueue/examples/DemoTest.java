package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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

  @Test
  void badFlags_areRejectedWithUsage() {
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--objects", "0"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--failure-rate", "1"));
    assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse("--bogus", "1"));
  }
}
