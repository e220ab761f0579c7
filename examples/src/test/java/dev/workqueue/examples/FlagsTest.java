package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every example's {@code --help} describes each of its flags, and exits 0; a bad flag 2. */
class FlagsTest {
  private static final Map<String, Function<String[], ?>> EXAMPLES = Map.of(
      "Demo", Demo.Options::parse,
      "ConfigMapController", ConfigMapController.Options::parse,
      "RateLimitBurst", RateLimitBurst.Options::parse,
      "SchedulerSimulation", SchedulerSimulation.Options::parse,
      "ShardedController", ShardedController.Options::parse);

  private static final Pattern FLAG = Pattern.compile("--[a-z-]+");

  @Test
  void help_describesEveryFlagOfTheUsageLine_inEveryExample() {
    EXAMPLES.forEach((name, parse) -> {
      String help = assertThrows(Flags.Help.class, () -> parse.apply(new String[] {"--help"}))
          .getMessage();
      String usage = help.lines().findFirst().orElseThrow();
      assertTrue(usage.startsWith("usage: " + name + " "), help);
      List<String> flags = new ArrayList<>();
      Matcher m = FLAG.matcher(usage);
      while (m.find()) {
        flags.add(m.group());
      }
      assertTrue(flags.size() >= 2, usage);
      flags.add("--help");
      for (String flag : flags) {
        assertTrue(help.lines().anyMatch(l -> l.matches("  " + flag + "( \\S+)? +\\S.{6,}")),
            name + ": a line describing " + flag + " in\n" + help);
      }
    });
  }

  @Test
  void orExit_printsTheHelpToStandardOutput_andExitsZero() {
    Run run = orExit("--help");
    assertEquals(List.of(0), run.exits);
    assertTrue(run.out.startsWith("usage: RateLimitBurst"), run.out);
    assertTrue(run.out.contains("\n  --qps F    the token bucket's rate"), run.out);
    assertTrue(run.out.contains("\n  --help     print this and exit"), "aligned: " + run.out);
    assertEquals("", run.err);
  }

  @Test
  void orExit_aBadFlag_printsTheErrorAndTheUsage_andExitsTwo() {
    Run run = orExit("--bogus");
    assertEquals(List.of(2), run.exits);
    assertEquals("unknown flag --bogus\n" + RateLimitBurst.Options.USAGE, run.err.strip());
    assertEquals("", run.out);
  }

  private record Run(List<Integer> exits, String out, String err) {}

  private static Run orExit(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<Integer> exits = new ArrayList<>();
    assertNull(Flags.orExit(() -> RateLimitBurst.Options.parse(args),
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), exits::add));
    return new Run(exits, out.toString(StandardCharsets.UTF_8).replace("\r", ""),
        err.toString(StandardCharsets.UTF_8).replace("\r", ""));
  }
}
