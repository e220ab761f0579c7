package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitBurstTest {

  @Test
  void twentyItemsAtOneQpsBurstFive_fiveAtOnceThenOnePerSecond() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    FakeClock clock = new FakeClock();
    List<RateLimitBurst.Release> timeline = RateLimitBurst.run(clock,
        RateLimitBurst.Options.parse(), new PrintStream(bytes, true, StandardCharsets.UTF_8));

    List<Duration> expected = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      expected.add(Duration.ZERO);
    }
    for (int s = 1; s <= 15; s++) {
      expected.add(Duration.ofSeconds(s));
    }
    assertEquals(expected, timeline.stream().map(RateLimitBurst.Release::at).toList());
    assertEquals("item-01", timeline.get(0).item());
    assertEquals("item-20", timeline.get(19).item(), "released in the order they were added");
    assertEquals(Duration.ofSeconds(15), clock.elapsed());
    assertTrue(!clock.hasWaiters(), "the queue was shut down and left no wake-up");

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("20 items through a token bucket of 1 qps, burst 5"), out);
    assertTrue(out.lines().anyMatch(l -> l.matches("item-06\\s+1000 ms\\s+\\+1000 ms")), out);
  }

  @Test
  void otherSettings_followTheSameRule() throws Exception {
    FakeClock clock = new FakeClock(Long.MAX_VALUE - 1_000_000_000L); // readings wrap mid-run
    List<RateLimitBurst.Release> timeline = RateLimitBurst.run(clock,
        RateLimitBurst.Options.parse("--items", "7", "--qps", "4", "--burst", "3"),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    assertEquals(List.of(0L, 0L, 0L, 250L, 500L, 750L, 1000L),
        timeline.stream().map(r -> r.at().toMillis()).toList());
  }

  @Test
  void histogram_countsReleasesPerInterval() throws Exception {
    FakeClock clock = new FakeClock();
    RateLimitBurst.Options o = RateLimitBurst.Options.parse("--items", "8", "--burst", "5");
    List<RateLimitBurst.Release> timeline = RateLimitBurst.run(clock, o,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RateLimitBurst.printHistogram(timeline, o, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertEquals(List.of("released per 1000 ms:", "       0 ms | ##### 5", "    1000 ms | # 1",
        "    2000 ms | # 1", "    3000 ms | # 1"), bytes.toString(StandardCharsets.UTF_8).lines().toList());
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    for (String[] args : List.of(new String[] {"--items", "0"}, new String[] {"--qps", "0"},
        new String[] {"--burst", "0"}, new String[] {"--bogus", "1"}, new String[] {"--items"})) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> RateLimitBurst.Options.parse(args));
      assertTrue(e.getMessage().contains("usage: RateLimitBurst"), e.getMessage());
    }
  }
}
