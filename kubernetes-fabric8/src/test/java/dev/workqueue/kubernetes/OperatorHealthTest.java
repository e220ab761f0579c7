package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.ControllerStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OperatorHealthTest {
  private static final ControllerStatus RUNNING =
      new ControllerStatus(true, 2, 2, 0, 0, 0, Optional.empty());
  private static final Health.Watch WATCHING = new Health.Watch("ConfigMap",
      Health.Watch.State.WATCHING, Duration.ZERO, Optional.empty());

  private static Health healthy() {
    return new Health(true, Health.Leadership.LEADING, RUNNING, List.of(WATCHING),
        Optional.empty());
  }

  @Test
  void liveAndReady_onlyIfEveryControllerIs_withEachControllersDetailInOrder() {
    Health syncing = new Health(false, Health.Leadership.LEADING, RUNNING, List.of(WATCHING),
        Optional.empty());
    Health failed = new Health(true, Health.Leadership.LEADING, RUNNING, List.of(WATCHING),
        Optional.of("the informer of ConfigMap stopped for good"));
    Map<String, Health> all = new LinkedHashMap<>();
    all.put("b", healthy());
    all.put("a", healthy());
    OperatorHealth ok = new OperatorHealth(all);
    assertTrue(ok.isLive() && ok.isReady());
    assertEquals(List.of("b", "a"), List.copyOf(ok.controllers().keySet()), "the order kept");

    all.put("c", syncing);
    OperatorHealth notReady = new OperatorHealth(all);
    assertTrue(notReady.isLive(), "a controller still syncing is live");
    assertFalse(notReady.isReady());

    all.put("d", failed);
    OperatorHealth notLive = new OperatorHealth(all);
    assertFalse(notLive.isLive());
    assertFalse(notLive.isReady());
    assertEquals(failed, notLive.controllers().get("d"));
    assertThrows(UnsupportedOperationException.class, () -> ok.controllers().put("e", failed));
  }
}
