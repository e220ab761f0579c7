package dev.workqueue.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.examples.SchedulerSimulation.NodeAdded;
import dev.workqueue.examples.SchedulerSimulation.NodeUse;
import dev.workqueue.examples.SchedulerSimulation.Pod;
import dev.workqueue.examples.SchedulerSimulation.Summary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SchedulerSimulationTest {

  private static Summary run(String... args) throws InterruptedException {
    return SchedulerSimulation.run(new FakeClock(), SchedulerSimulation.Options.parse(args),
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
  }

  @Test
  void defaultRun_placesEveryPod_withinCapacity_andNodeEventsMoveExactlyTheQueuedPods()
      throws Exception {
    Summary s = run();

    assertEveryPodPlacedOnceWithinCapacity(s);
    assertNodeEventsMovedExactlyWhatTheHintQueued(s);
    // The seed gives a run that shows both answers and both kinds of failure.
    assertTrue(s.nodesAdded().stream().anyMatch(e -> !e.hintSkip().isEmpty()), "some SKIP");
    assertTrue(s.nodesAdded().stream().anyMatch(e -> !e.hintQueue().isEmpty()), "some QUEUE");
    assertTrue(s.rejections() > 0 && s.bindErrors() > 0, s.toString());

    Map<String, Double> m = s.metrics();
    // Rejected pods were parked in the pool, failed binds backed off: nothing was logged
    // during an attempt in this single-threaded run, so the replay never rescues one.
    assertEquals((double) s.rejections(),
        m.get("queue_incoming_items_total{queue=unschedulable,event=ScheduleAttemptFailure}"));
    assertEquals((double) s.bindErrors(),
        m.get("queue_incoming_items_total{queue=backoff,event=ScheduleAttemptFailure}"));
    assertEquals((double) s.pods().size(), m.get("queue_incoming_items_total{queue=active,event=ItemAdd}"));
    assertEquals(s.attempts(), s.pods().size() + s.rejections() + s.bindErrors(),
        "every attempt ended in a bind, a rejection or an error");
    for (String part : List.of("active", "backoff", "unschedulable", "gated")) {
      assertEquals(0.0, m.get("pending_items{queue=" + part + "}"), part);
    }
  }

  @Test
  void manySeeds_alwaysConverge_withinCapacity() throws Exception {
    for (long seed = 2; seed <= 7; seed++) {
      Summary s = run("--pods", "30", "--nodes", "1", "--bind-failure-rate", "0.3",
          "--seed", Long.toString(seed), "--quiet");
      assertEveryPodPlacedOnceWithinCapacity(s);
      assertNodeEventsMovedExactlyWhatTheHintQueued(s);
    }
  }

  @Test
  void sameSeed_printsTheSameRun() throws Exception {
    String[] args = {"--pods", "12", "--seed", "7"};
    assertEquals(printed(args), printed(args));
  }

  @Test
  void output_showsMovesBetweenTheQueues_andTheMetrics() throws Exception {
    String out = printed();
    assertTrue(out.contains("->active x24 (ItemAdd)"), out);
    assertTrue(out.contains("->unschedulable (ScheduleAttemptFailure)"), out);
    assertTrue(out.contains("->backoff (ScheduleAttemptFailure)"), out);
    assertTrue(out.contains("(node/Add)"), out);
    assertTrue(out.contains("(BackoffComplete)"), out);
    assertTrue(out.contains("placed 24/24 pods"), out);
    assertTrue(out.contains("queue_incoming_items_total{queue=active,event=node/Add}"), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    for (String[] args : List.of(new String[] {"--pods", "0"}, new String[] {"--nodes", "-1"},
        new String[] {"--bind-failure-rate", "1"}, new String[] {"--seed", "x"},
        new String[] {"--bogus"})) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SchedulerSimulation.Options.parse(args));
      assertTrue(e.getMessage().contains("usage: SchedulerSimulation"), e.getMessage());
    }
  }

  private static String printed(String... args) throws InterruptedException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SchedulerSimulation.run(new FakeClock(), SchedulerSimulation.Options.parse(args),
        new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private static void assertEveryPodPlacedOnceWithinCapacity(Summary s) {
    Map<String, Pod> pods = s.pods().stream().collect(Collectors.toMap(Pod::name, Function.identity()));
    assertEquals(pods.keySet(), s.placements().keySet(), "every pod placed");
    Set<String> seen = new HashSet<>();
    for (NodeUse u : s.nodes()) {
      int cpu = 0;
      int memory = 0;
      for (String name : u.pods()) {
        assertTrue(seen.add(name), name + " bound twice");
        assertEquals(u.node().name(), s.placements().get(name));
        cpu += pods.get(name).cpuMillis();
        memory += pods.get(name).memoryMiB();
      }
      assertEquals(cpu, u.cpuUsed(), u.toString());
      assertEquals(memory, u.memoryUsed(), u.toString());
      assertTrue(cpu <= u.node().cpuMillis() && memory <= u.node().memoryMiB(),
          "over capacity: " + u);
    }
    assertEquals(pods.keySet(), seen);
  }

  private static void assertNodeEventsMovedExactlyWhatTheHintQueued(Summary s) {
    Map<String, Pod> pods = s.pods().stream().collect(Collectors.toMap(Pod::name, Function.identity()));
    long movedTotal = 0;
    for (NodeAdded e : s.nodesAdded()) {
      assertEquals(Set.copyOf(e.hintQueue()), Set.copyOf(e.moved()), "moved by " + e);
      Set<String> answered = new HashSet<>(e.hintQueue());
      answered.addAll(e.hintSkip());
      assertEquals(Set.copyOf(e.pooled()), answered, "the hint was asked about every pooled pod");
      for (String name : e.hintQueue()) {
        assertTrue(e.node().fits(pods.get(name)), name + " queued for " + e.node());
      }
      for (String name : e.hintSkip()) {
        assertTrue(!e.node().fits(pods.get(name)), name + " skipped for " + e.node());
      }
      movedTotal += e.moved().size();
    }
    double byEvent = s.metrics().getOrDefault(
        "queue_incoming_items_total{queue=active,event=node/Add}", 0.0)
        + s.metrics().getOrDefault("queue_incoming_items_total{queue=backoff,event=node/Add}", 0.0);
    assertEquals(movedTotal, (long) byEvent, "the queue's own count of items moved by node/Add");
  }
}
