package dev.workqueue.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Workers on virtual threads (Java 21+; skipped on 17, where the toolkit is compiled). The
 * factory is looked up reflectively so this compiles for Java 17.
 */
class VirtualThreadsTest {

  @Test
  void controller_runsOnVirtualThreads() throws Exception {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+");
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    ThreadFactory virtual = (ThreadFactory) Class.forName("java.lang.Thread$Builder")
        .getMethod("factory").invoke(builder);

    int keys = 200;
    CountDownLatch reconciled = new CountDownLatch(keys);
    Set<Boolean> virtualFlags = ConcurrentHashMap.newKeySet();
    Controller<Integer> controller = Controller.<Integer>builder("virtual")
        .workers(50)
        .threadFactory(virtual)
        .reconciler(key -> {
          virtualFlags.add((Boolean) Thread.class.getMethod("isVirtual")
              .invoke(Thread.currentThread()));
          Thread.sleep(1); // parks the virtual thread, not a carrier
          reconciled.countDown();
          return Result.success();
        })
        .build();
    controller.start();
    for (int i = 0; i < keys; i++) {
      controller.add(i);
    }
    assertTrue(reconciled.await(30, TimeUnit.SECONDS));
    assertEquals(Set.of(true), virtualFlags);
    assertTrue(controller.stop(Duration.ofSeconds(10)).completed());
  }

  @Test
  void virtualThreads_keepTheWorkerNames() throws Exception {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21+");
    Set<String> names = ConcurrentHashMap.newKeySet();
    Set<Boolean> virtualFlags = ConcurrentHashMap.newKeySet();
    CountDownLatch reconciled = new CountDownLatch(20);
    Controller<Integer> controller = Controller.<Integer>builder("named")
        .workers(2)
        .virtualThreads()
        .reconciler(key -> {
          names.add(Thread.currentThread().getName());
          virtualFlags.add((Boolean) Thread.class.getMethod("isVirtual")
              .invoke(Thread.currentThread()));
          reconciled.countDown();
          return Result.success();
        })
        .build();
    controller.start();
    for (int i = 0; i < 20; i++) {
      controller.add(i);
    }
    assertTrue(reconciled.await(30, TimeUnit.SECONDS));
    assertEquals(Set.of(true), virtualFlags);
    assertTrue(names.stream().allMatch(n -> n.matches("workqueue-worker-named-[12]")), "" + names);
    assertTrue(controller.stop(Duration.ofSeconds(10)).completed());
  }

  @Test
  void virtualThreads_onJava17_areRefusedWithAClearError() {
    assumeTrue(Runtime.version().feature() < 21, "only before Java 21");
    UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
        () -> Controller.<Integer>builder("x").virtualThreads());
    assertTrue(e.getMessage().startsWith("virtual threads need Java 21 or later"),
        e.getMessage());
  }
}
