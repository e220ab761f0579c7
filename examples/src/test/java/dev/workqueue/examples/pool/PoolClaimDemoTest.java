package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PoolClaimDemoTest {

  @Test
  void aSmallRun_claimsAPodForEveryRequest_andPrintsTheSummary() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PoolClaimDemo.Summary s = PoolClaimDemo.run(
        PoolClaimDemo.Options.parse("--pods", "10", "--requests", "40", "--quiet"),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(40, s.requests());
    assertEquals(40, s.claimed(), out);
    assertEquals(0, s.timedOut() + s.shutDown());
    assertTrue(s.last().scaleUps() >= 1, "40 requests drain 10 pods: " + out);
    assertTrue(s.podsAtEnd() > 10, "the fake autoscaler added pods");
    assertTrue(out.contains("claimed 40/40 requests"), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    assertThrows(IllegalArgumentException.class, () -> PoolClaimDemo.Options.parse("--pods", "0"));
    assertThrows(IllegalArgumentException.class,
        () -> PoolClaimDemo.Options.parse("--conflict-rate", "1"));
    assertThrows(IllegalArgumentException.class, () -> PoolClaimDemo.Options.parse("--bogus", "1"));
    assertThrows(IllegalArgumentException.class, () -> PoolClaimDemo.Options.parse("--pods"));
  }
}
