package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.examples.pool.PoolClaimDemo.FakePool;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PoolClaimDemoTest {

  @Test
  void aSmallRun_claimsAPodForEveryRequest_andPrintsTheSummary() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    FakePool pool = PoolClaimDemo.run(out, 2, 20, 10); // 2 bursts of 20 requests, 10 pods
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(40, pool.claims.values().stream().mapToInt(Integer::intValue).sum(), printed);
    assertEquals(0, pool.doubleHandOuts.get(), printed);
    assertTrue(pool.pods.size() > 10, "the fake autoscaler added pods: " + printed);
    assertTrue(printed.contains("claimed 40 of 40 requests"), printed);
  }
}
