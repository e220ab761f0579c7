package dev.workqueue;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Parallelizer;
import dev.workqueue.controller.Result;
import dev.workqueue.controller.StopResult;
import dev.workqueue.testing.RecordingMetricsProvider;
import dev.workqueue.testsupport.ToolkitThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The toolkit's threads are all named {@code workqueue-}: an idle queue of any kind owns none
 * (the scheduling module checks its queue the same way: {@code SchedulingThreadOwnershipTest}),
 * and once a component is shut down (after it started timer or worker threads on the real
 * clock) none of ours stays alive. The shared timer pool's threads end after one idle second,
 * so the shutdown checks wait for that (truly asynchronous: Awaitility).
 */
class ThreadOwnershipTest {

  static Set<Thread> toolkitThreads() {
    return ToolkitThreads.alive();
  }

  @Test
  void idleQueues_ofEveryKind_startNoThread() {
    Set<Thread> before = toolkitThreads();
    RecordingMetricsProvider metrics = new RecordingMetricsProvider();
    List<Object> queues = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      WorkQueue<String> plain = i % 2 == 0
          ? WorkQueue.create()
          : WorkQueue.<String>builder().name("idle-" + i).metricsProvider(metrics).build();
      plain.add("waiting"); // queued, never taken: still idle
      DelayingQueue<String> delaying = DelayingQueue.create();
      delaying.add("waiting");
      RateLimitingQueue<String> limited = i % 2 == 0
          ? RateLimitingQueue.create()
          : WorkQueue.<String>builder().name("idle-rl-" + i).metricsProvider(metrics)
              .buildRateLimiting(dev.workqueue.ratelimit.RateLimiters.exponential(
                  Duration.ofMillis(5), Duration.ofSeconds(1)));
      limited.add("waiting");
      limited.forget("waiting");
      queues.addAll(List.of(plain, delaying, limited));
    }
    Set<Thread> after = toolkitThreads();
    after.removeAll(before);
    assertEquals(Set.of(), after);
    assertEquals(3000, queues.size());
  }

  /** One component used on the real clock so that it starts threads, then shut down. */
  @FunctionalInterface
  interface Use {
    void run() throws Exception;
  }

  static Stream<Arguments> components() {
    return Stream.of(
        Arguments.of("WorkQueue, named, metrics refreshing while processing", (Use) () -> {
          WorkQueue<String> q = WorkQueue.<String>builder().name("threads")
              .metricsProvider(new RecordingMetricsProvider())
              .metricsUpdatePeriod(Duration.ofMillis(1)).build();
          q.add("x");
          assertEquals(Optional.of("x"), q.poll(Duration.ZERO));
          await().atMost(Duration.ofSeconds(10)).until(() -> !toolkitThreads().isEmpty());
          q.done("x");
          q.shutDown();
        }),
        Arguments.of("DelayingQueue, one item delivered, one still waiting", (Use) () -> {
          DelayingQueue<String> q = DelayingQueue.create();
          q.addAfter("soon", Duration.ofMillis(5));
          q.addAfter("never", Duration.ofHours(1));
          assertEquals(Optional.of("soon"), q.poll(Duration.ofSeconds(10)));
          q.shutDown();
        }),
        Arguments.of("RateLimitingQueue, one retry delivered, one still waiting", (Use) () -> {
          RateLimitingQueue<String> q = RateLimitingQueue.create();
          q.addRateLimited("x"); // 5 ms
          assertEquals(Optional.of("x"), q.poll(Duration.ofSeconds(10)));
          q.addRateLimited("x"); // 10 ms, while processing
          q.addRateLimited("y"); // 5 ms
          q.done("x");
          assertTrue(q.shutDownWithDrain(Duration.ofSeconds(10)));
        }),
        Arguments.of("Controller, workers and back-off, stopped", (Use) () -> {
          AtomicInteger calls = new AtomicInteger();
          Controller<String> c = Controller.<String>builder("threads").workers(3)
              .reconciler(key -> {
                if (calls.incrementAndGet() == 1) {
                  throw new IllegalStateException("fails once: a back-off on the timer");
                }
                return Result.requeueAfter(Duration.ofHours(1));
              })
              .build();
          c.start();
          c.add("x");
          await().atMost(Duration.ofSeconds(10)).until(() -> calls.get() >= 2);
          StopResult<String> stopped = c.stop(Duration.ofSeconds(10));
          assertTrue(stopped.completed());
        }),
        Arguments.of("Parallelizer", (Use) () -> {
          Set<Integer> done = ConcurrentHashMap.newKeySet();
          Parallelizer.parallelizeUntil(() -> false, 4, 100, done::add);
          assertEquals(100, done.size());
        }));
  }

  /**
   * All components in one run, with one wait at the end: the timer pool's idle second is paid
   * once. A failure names the threads still alive (workers and parallelizer threads carry their
   * component's name; timer threads mean a wake-up is still scheduled).
   */
  @Test
  void afterShutdown_noThreadOfOursIsAlive_forEveryComponent() throws Exception {
    // The suite leaves no toolkit thread behind; if one is still winding down, wait for it.
    await().atMost(Duration.ofSeconds(10)).until(() -> toolkitThreads().isEmpty());
    List<String> used = new ArrayList<>();
    for (Arguments component : components().toList()) {
      ((Use) component.get()[1]).run();
      used.add((String) component.get()[0]);
    }
    await().atMost(Duration.ofSeconds(10))
        .alias("no toolkit thread alive after shutting down " + used)
        .until(() -> toolkitThreads().isEmpty());
  }
}
