package dev.workqueue.examples;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.examples.ShardedController.Step;
import dev.workqueue.testsupport.ToolkitThreads;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the example's script at small scale (24 objects) on its embedded API server: real HTTP
 * on loopback, real informers and Leases. Each step's outcome is read from the API server (the
 * annotation each reconcile writes, the ring's Leases) once every running replica agrees on the
 * ring and is idle; the example's checker sees every reconcile's start and end.
 */
@Timeout(120)
class ShardedControllerTest {
  private static final int OBJECTS = 24;
  private static final String A = "replica-a";
  private static final String B = "replica-b";
  private static final String C = "replica-c";
  private static final String D = "replica-d";

  @Test
  void threeSplitTheKeys_aJoinerTakesSome_aLeaverAndACutOffHandTheirsOver_neverTwoAtOnce()
      throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<Step> steps;
    try (ShardedController example = ShardedController.start(
        ShardedController.Options.parse("--objects", Integer.toString(OBJECTS)),
        new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
      steps = example.run();
      assertEquals(List.of(), example.violations(), "no key reconciled by two replicas at once");
      for (ConfigMap cm : example.admin().configMaps()
          .inNamespace(ShardedController.NAMESPACE).list().getItems()) {
        assertEquals("v2", cm.getData().get("value"));
        assertTrue(Set.of(A, D).contains(
            cm.getMetadata().getAnnotations().get(ShardedController.ANNOTATION)), cm.toString());
      }
    }
    await().atMost(10, SECONDS).until(() -> ToolkitThreads.alive().isEmpty());
    String out = bytes.toString(StandardCharsets.UTF_8);
    assertEquals(5, steps.size(), out);
    Step start = steps.get(0);
    Step join = steps.get(1);
    Step leave = steps.get(2);
    Step cut = steps.get(3);
    Step change = steps.get(4);

    // Three replicas: each owns some keys, every key has an owner.
    assertEquals(List.of(A, B, C), start.ring(), out);
    assertEquals(OBJECTS, sum(start.keys()), out);
    for (String id : start.ring()) {
      assertTrue(start.keys().get(id) > 0, id + " owns some keys: " + start.keys());
      assertTrue(start.leases().contains(lease(id)), start.leases().toString());
      assertTrue(out.contains("[" + id + "] started: caches synced, Lease " + lease(id)
          + " written"), "the Lease's real name: " + out);
    }
    assertEquals(Set.of(lease(A), lease(B), lease(C)), start.leases());

    // A fourth joins: keys move to it and to it alone.
    assertEquals(List.of(A, B, C, D), join.ring(), out);
    assertTrue(join.keys().get(D) > 0, "the joiner owns some keys: " + join.keys());
    assertEquals(join.keys().get(D), sum(join.moves()), "every key it owns came from another");
    join.moves().keySet().forEach(m -> assertTrue(m.endsWith("-> " + D), m));

    // replica-b leaves: its Lease is deleted, its keys go to the others, and only its keys.
    assertEquals(List.of(A, C, D), leave.ring(), out);
    assertEquals(0, leave.keys().get(B), out);
    assertEquals(join.keys().get(B), sum(leave.moves()), out);
    leave.moves().keySet().forEach(m -> assertTrue(m.startsWith(B + " -> "), m));
    assertEquals(Set.of(lease(A), lease(C), lease(D)), leave.leases());

    // replica-c is cut off: once its Lease expired the others took its keys, and only its keys.
    assertEquals(List.of(A, D), cut.ring(), out);
    assertEquals(0, cut.keys().get(C), out);
    assertEquals(leave.keys().get(C), sum(cut.moves()), out);
    cut.moves().keySet().forEach(m -> assertTrue(m.startsWith(C + " -> "), m));
    assertEquals(Set.of(lease(A), lease(D)), cut.leases());

    // Every object changes: each change was reconciled (the settle waits for it), by the owner
    // the re-list on gain had already chosen.
    assertEquals(Map.of(), change.moves(), out);
    assertEquals(cut.keys(), change.keys(), out);

    assertTrue(out.contains("[" + D + "] took demo/cm-"), out);
    assertTrue(out.contains("no key was reconciled by two replicas at once"), out);
  }

  @Test
  void badFlags_areRejectedWithUsage() {
    for (String[] args : List.of(new String[] {"--objects", "0"},
        new String[] {"--workers", "0"}, new String[] {"--bogus"})) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ShardedController.Options.parse(args));
      assertTrue(e.getMessage().contains("usage: ShardedController"), e.getMessage());
    }
    assertEquals(new ShardedController.Options(48, 2), ShardedController.Options.parse());
  }

  private static String lease(String replica) {
    return ShardedController.RING + "." + replica;
  }

  private static int sum(Map<String, Integer> counts) {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }
}
