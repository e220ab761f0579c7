package dev.workqueue.controller;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.InvariantChecker;
import dev.workqueue.PollResult;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.metrics.ControllerMetricsProvider;
import dev.workqueue.metrics.Counter;
import dev.workqueue.metrics.Gauge;
import dev.workqueue.metrics.Histogram;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import dev.workqueue.testsupport.StressScale;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Fault injection in the reconcile loop: reconcilers that throw exceptions and errors, return
 * null, block until interrupted or ignore interrupts, interrupt themselves, run past their
 * timeout; user callbacks around them that throw; and a stop in the middle of all of it. What
 * must hold: the stop returns within its bound and reports what is still running, every key
 * is reconciled or reported, no worker is lost except by the documented
 * {@code VirtualMachineError}, and no toolkit thread is left. The single-fault outcomes
 * (back-off, {@code TerminalException}, timeout, drain) are in {@link ControllerTest}; this
 * class adds the faults around them and their combination.
 */
class ControllerFaultTest {
  private final FakeClock clock = new FakeClock();
  private final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
  private Controller<String> controller;
  private Controller<Integer> chaosController;

  @AfterEach
  void stopAndCheckThreads() throws InterruptedException {
    for (Controller<?> c : new Controller<?>[] {controller, chaosController}) {
      if (c != null) {
        c.stop(Duration.ZERO);
      }
    }
    await().atMost(10, SECONDS).until(() -> workerThreads("").isEmpty());
  }

  /** The live worker threads of controllers whose name starts with {@code name}. */
  private static Set<Thread> workerThreads(String name) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("workqueue-worker-" + name) && t.isAlive())
        .collect(Collectors.toSet());
  }

  private String nextCall() throws InterruptedException {
    String key = calls.poll(10, SECONDS);
    assertNotNull(key, "the reconciler was not called");
    return key;
  }

  @Test
  void throwingDroppedKeyHandler_neitherKillsTheWorker_norLeavesTheKeyProcessing()
      throws Exception {
    controller = Controller.<String>builder("handler").clock(clock)
        .maxRetries(0, (key, attempts, last) -> {
          throw new IllegalStateException("handler bug");
        })
        .reconciler(key -> {
          calls.add(key);
          if (key.equals("bad")) {
            throw new IllegalStateException("reconcile failed");
          }
          return Result.success();
        })
        .build(); // one worker: if it died, nothing below would be reconciled
    controller.start();
    controller.add("bad");
    assertEquals("bad", nextCall());
    controller.add("next");
    assertEquals("next", nextCall(), "the worker survived the handler's exception");
    controller.add("bad");
    assertEquals("bad", nextCall(), "the key was done: it can be handed out again");
    assertEquals(1, workerThreads("handler").size());
  }

  @Test
  void throwingRateLimiter_neitherKillsTheWorker_norLeavesTheKeyProcessing() throws Exception {
    RateLimiter<String> broken = new RateLimiter<>() {
      @Override
      public Duration when(String item) {
        throw new IllegalStateException("limiter bug");
      }

      @Override
      public void forget(String item) {}

      @Override
      public int numRequeues(String item) {
        return 0;
      }
    };
    controller = Controller.<String>builder("limiter").clock(clock).rateLimiter(broken)
        .reconciler(key -> {
          calls.add(key);
          return key.equals("again") ? Result.requeue() : Result.success();
        })
        .build();
    controller.start();
    controller.add("again"); // requeue → addRateLimited → the limiter throws
    assertEquals("again", nextCall());
    controller.add("next");
    assertEquals("next", nextCall(), "the worker survived the limiter's exception");
    controller.add("again");
    assertEquals("again", nextCall(), "the key was done: it can be handed out again");
  }

  /**
   * A metrics provider whose every instrument throws once armed (after the build, which sets
   * the gauges once and may fail fast).
   */
  static final class ThrowingMetrics implements ControllerMetricsProvider {
    volatile boolean armed;

    private void maybeThrow() {
      if (armed) {
        throw new IllegalStateException("metrics backend down");
      }
    }

    @Override
    public Counter newReconcileTotal(String controller, String result) {
      return this::maybeThrow;
    }

    @Override
    public Counter newReconcileErrors(String controller) {
      return this::maybeThrow;
    }

    @Override
    public Counter newTerminalReconcileErrors(String controller) {
      return this::maybeThrow;
    }

    @Override
    public Counter newReconcilePanics(String controller) {
      return this::maybeThrow;
    }

    @Override
    public Histogram newReconcileTime(String controller) {
      return seconds -> maybeThrow();
    }

    @Override
    public Gauge newActiveWorkers(String controller) {
      return value -> maybeThrow();
    }

    @Override
    public Gauge newMaxConcurrentReconciles(String controller) {
      return value -> maybeThrow();
    }
  }

  @Test
  void throwingMetricsProvider_neitherKillsTheWorker_norLeavesKeysProcessing() throws Exception {
    ThrowingMetrics metrics = new ThrowingMetrics();
    controller = Controller.<String>builder("metrics").clock(clock).metricsProvider(metrics)
        .reconciler(key -> {
          calls.add(key);
          switch (key) {
            case "error":
              throw new AssertionError("counted as a panic");
            case "failure":
              throw new IllegalStateException("counted as an error");
            case "requeue":
              return Result.requeue();
            default:
              return Result.success();
          }
        })
        .build(); // one worker: if it died, nothing below would be reconciled
    metrics.armed = true;
    controller.start();
    for (String key : List.of("error", "failure", "requeue", "success")) {
      controller.add(key);
      assertEquals(key, nextCall());
    }
    clock.stepMillis(5); // the three retries come due
    List<String> retried = List.of(nextCall(), nextCall(), nextCall());
    assertEquals(Set.of("error", "failure", "requeue"), Set.copyOf(retried),
        "each key was done and requeued despite the metrics");
    assertEquals(1, workerThreads("metrics").size());
  }

  /**
   * A queue whose {@code get} throws a {@link RuntimeException} once (a queue bug, a hook that
   * escaped), delegating everything else to a real queue.
   */
  static final class GetThrowsOnce<T> extends ForwardingRateLimitingQueue<T> {
    private final AtomicBoolean armed;
    private final CountDownLatch thrown;

    GetThrowsOnce(RateLimitingQueue<T> real, AtomicBoolean armed, CountDownLatch thrown) {
      super(real);
      this.armed = armed;
      this.thrown = thrown;
    }

    @Override
    public Optional<T> get() throws InterruptedException {
      if (armed.compareAndSet(true, false)) {
        thrown.countDown();
        throw new IllegalStateException("get failed once");
      }
      return real.get();
    }

    /** Set to make the next {@code done} throw, after the real queue's done did its work. */
    final AtomicBoolean doneArmed = new AtomicBoolean();

    @Override
    public void done(T item) {
      real.done(item);
      if (doneArmed.compareAndSet(true, false)) {
        throw new IllegalStateException("done failed once");
      }
    }
  }

  @Test
  void queueGetThatThrowsOnce_costsNoWorker_keysAreStillReconciledByEveryWorker()
      throws Exception {
    AtomicBoolean armed = new AtomicBoolean(true);
    CountDownLatch thrown = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Set<String> reconciling = ConcurrentHashMap.newKeySet();
    controller = Controller.<String>builder("getfault").clock(clock).workers(2)
        .queue(() -> new GetThrowsOnce<>(WorkQueue.<String>builder().clock(clock)
            .buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(5),
                Duration.ofSeconds(1))), armed, thrown))
        .reconciler(key -> {
          reconciling.add(key);
          calls.add(key);
          release.await(10, SECONDS); // both workers hold a key at once
          return Result.success();
        })
        .build();
    try {
      controller.start();
      assertTrue(thrown.await(10, SECONDS), "a worker's get threw");
      controller.add("k1");
      controller.add("k2");
      // Today the worker whose get threw dies (only InterruptedException is caught there)
      // while isRunning() stays true: one worker is left, and it reconciles k1 and k2 in turn.
      await("both workers reconcile at once: none was lost to the exception from get")
          .dontCatchUncaughtExceptions().atMost(5, SECONDS)
          .until(() -> reconciling.size() == 2);
      assertTrue(controller.isRunning());
    } finally {
      release.countDown();
    }
    assertEquals(2, workerThreads("getfault").size(), "both workers are alive");
  }

  @Test
  void queueDoneThatThrowsOnce_costsNoWorker() throws Exception {
    GetThrowsOnce<String> queue = new GetThrowsOnce<>(WorkQueue.<String>builder().clock(clock)
        .buildRateLimiting(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1))),
        new AtomicBoolean(false), new CountDownLatch(1));
    queue.doneArmed.set(true);
    controller = Controller.<String>builder("donefault").clock(clock).workers(1)
        .queue(() -> queue)
        .reconciler(key -> {
          calls.add(key);
          return Result.success();
        })
        .build();
    controller.start();
    controller.add("k1");
    assertEquals("k1", nextCall());
    controller.add("k2");
    assertEquals("k2", nextCall(), "the only worker survived the done that threw");
    assertEquals(1, workerThreads("donefault").size());
  }

  @Test
  void virtualMachineError_requeuesTheKey_andEndsOnlyTheWorkerItHit() throws Exception {
    AtomicBoolean thrown = new AtomicBoolean();
    controller = Controller.<String>builder("fatal").clock(clock).workers(2)
        .reconciler(key -> {
          calls.add(key);
          if (key.equals("fatal") && thrown.compareAndSet(false, true)) {
            throw new InternalError("the JVM may be broken"); // a VirtualMachineError
          }
          return Result.success();
        })
        .build();
    controller.start();
    // The worker dies of an uncaught error on purpose: Awaitility must not report it.
    await().dontCatchUncaughtExceptions().atMost(10, SECONDS)
        .until(() -> workerThreads("fatal").size() == 2);
    controller.add("fatal");
    assertEquals("fatal", nextCall());
    // Documented: the worker that caught a VirtualMachineError rethrows it and ends; the key
    // is done and requeued with back-off first, and the other workers go on.
    await().dontCatchUncaughtExceptions().atMost(10, SECONDS)
        .until(() -> workerThreads("fatal").size() == 1);
    assertEquals(1, ((DefaultController<String>) controller).queue().waitingCount());
    ControllerStatus status = controller.status();
    assertEquals(2, status.configuredWorkers());
    assertEquals(1, status.liveWorkers(), "a health check sees the lost worker");
    assertFalse(status.workersAlive());
    assertEquals(1, status.waiting(), "the key waits out its back-off");
    clock.stepMillis(5);
    assertEquals("fatal", nextCall(), "requeued with back-off, reconciled by the other worker");
    controller.add("next");
    assertEquals("next", nextCall());
    StopResult<String> stopped = controller.stop(Duration.ofSeconds(1));
    assertTrue(stopped.completed(), "a lost worker does not hold up the stop");
  }

  @Test
  void reconcilerIgnoringInterrupts_stopReturnsAtItsDeadline_reportsTheKey_workerEndsLater()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger interrupts = new AtomicInteger();
    Controller<String> deaf = Controller.<String>builder("deaf").clock(clock).workers(2)
        .reconciler(key -> {
          calls.add(key);
          while (true) {
            try {
              release.await();
              return Result.success();
            } catch (InterruptedException e) {
              interrupts.incrementAndGet(); // swallowed: keeps blocking
            }
          }
        })
        .build();
    controller = deaf;
    try {
      deaf.start();
      deaf.add("stuck");
      assertEquals("stuck", nextCall());
      CompletableFuture<StopResult<String>> stop = stopAsync(deaf, Duration.ofSeconds(5));
      await().atMost(10, SECONDS).until(clock::hasWaiters); // the stop waits on the clock
      clock.step(Duration.ofSeconds(5));
      StopResult<String> stopped = stop.get(10, SECONDS);
      assertFalse(stopped.completed());
      assertEquals(List.of("stuck"), stopped.stillRunning());
      await().atMost(10, SECONDS).until(() -> interrupts.get() == 1); // interrupted at the deadline
      // the idle worker exits; the deaf one runs on
      await().atMost(10, SECONDS).until(() -> workerThreads("deaf").size() == 1);
    } finally {
      release.countDown(); // never leave the deaf worker behind, even when an assertion fails
    }
    await().atMost(10, SECONDS).until(() -> workerThreads("deaf").isEmpty());
    assertFalse(controller.isRunning());
  }

  @Test
  void reconcilersInterruptedFromOutside_orInterruptingThemselves_leaveTheWorkerWorking()
      throws Exception {
    CountDownLatch blocked = new CountDownLatch(1);
    AtomicBoolean interruptedOnce = new AtomicBoolean();
    controller = Controller.<String>builder("interrupt").clock(clock)
        .reconciler(key -> {
          calls.add(key);
          if (key.equals("self")) {
            Thread.currentThread().interrupt(); // returns with its flag set
            return Result.success();
          }
          if (key.equals("blocks") && interruptedOnce.compareAndSet(false, true)) {
            blocked.countDown();
            new CountDownLatch(1).await(); // until someone interrupts it
          }
          return Result.success();
        })
        .build();
    controller.start();
    controller.add("self");
    assertEquals("self", nextCall());
    controller.add("after-self");
    assertEquals("after-self", nextCall(), "a flag left set does not end the worker");

    controller.add("blocks");
    assertEquals("blocks", nextCall());
    assertTrue(blocked.await(10, SECONDS));
    Thread worker = workerThreads("interrupt").iterator().next();
    worker.interrupt(); // someone else's interrupt: the reconcile fails and is retried
    await().atMost(10, SECONDS)
        .until(() -> ((DefaultController<String>) controller).queue().waitingCount() == 1);
    clock.stepMillis(5);
    assertEquals("blocks", nextCall(), "retried after its back-off");
    controller.add("after-interrupt");
    assertEquals("after-interrupt", nextCall());
    assertEquals(Set.of(worker), workerThreads("interrupt"), "still the same worker");
  }

  /**
   * Every fault at once on 4 workers, keys added by 3 producers while a ticker moves the fake
   * clock (back-offs end, timeouts fire), then a draining stop in the middle of it: the stop
   * completes within its bound, every add is followed by a reconcile that started after it,
   * never two workers on one key, no worker was lost to the errors, and afterwards no worker
   * thread and no clock wake-up is left.
   */
  @Test
  void everyFaultAtOnce_thenStop_completesInBound_losesNoKeyAndNoWorker_leavesNoThread() {
    assertTimeoutPreemptively(Duration.ofSeconds(120), this::chaos);
  }

  private void chaos() throws Exception {
    int keys = 24;
    int addsPerProducer = 2_000 * StressScale.factor();
    InvariantChecker checker = new InvariantChecker(keys, clock::nanoTime);
    AtomicInteger faults = new AtomicInteger();
    Controller<Integer> c = Controller.<Integer>builder("chaos").clock(clock).workers(4)
        .reconcileTimeout(Duration.ofSeconds(1))
        .rateLimiter(RateLimiters.exponential(Duration.ofMillis(5), Duration.ofSeconds(1)))
        .drainOnStop(true)
        .reconciler(key -> {
          checker.handedOut(key);
          try {
            return reconcileWithFault(key, faults);
          } finally {
            checker.finishing(key);
          }
        })
        .build();
    chaosController = c;
    c.start();
    AtomicBoolean ticking = new AtomicBoolean(true);
    Thread ticker = new Thread(() -> {
      while (ticking.get()) {
        clock.stepMillis(50);
        Thread.yield();
      }
    }, "chaos-ticker");
    ticker.setDaemon(true); // a failing run must not leave it ticking
    ticker.start();
    try {
      produceThenStop(c, checker, keys, addsPerProducer);
    } finally {
      ticking.set(false);
      ticker.join();
    }
    assertTrue(faults.get() > 0, "faults were injected");
    await().atMost(10, SECONDS).until(() -> workerThreads("chaos").isEmpty());
    assertEquals(0, clock.pendingWakeups(), "no timeout or back-off wake-up is left");
  }

  /** Three producers add hot keys; then a draining stop while the workers still fail. */
  private static void produceThenStop(Controller<Integer> c, InvariantChecker checker, int keys,
      int addsPerProducer) throws InterruptedException {
    Thread[] producers = new Thread[3];
    for (int p = 0; p < producers.length; p++) {
      SplittableRandom random = new SplittableRandom(p);
      producers[p] = new Thread(() -> {
        for (int i = 0; i < addsPerProducer; i++) {
          int key = random.nextInt(keys);
          checker.beforeAdd(key);
          c.add(key);
          if ((i & 7) == 0) {
            Thread.yield();
          }
        }
      }, "chaos-producer-" + p);
      producers[p].start();
    }
    for (Thread t : producers) {
      t.join();
    }
    assertEquals(4, workerThreads("chaos").size(), "no worker was lost to the faults");
    StopResult<Integer> stopped = c.stop(Duration.ofHours(1)); // on the fake clock
    assertTrue(stopped.completed(), "drained and stopped: " + stopped);
    assertEquals(List.of(), stopped.stillRunning());
    checker.verify("Controller faults", false);
  }

  /** Key {@code k} behaves by {@code k % 8}; faults on some attempts only, so keys finish. */
  private static Result reconcileWithFault(int key, AtomicInteger faults) throws Exception {
    boolean fault = ThreadLocalRandom.current().nextInt(3) == 0;
    if (!fault) {
      return key % 4 == 0 ? null : Result.success();
    }
    faults.incrementAndGet();
    switch (key % 8) {
      case 0:
        throw new IllegalStateException("flaky");
      case 1:
        throw new AssertionError("bug");
      case 2:
        return recurse(0); // StackOverflowError
      case 3:
        new CountDownLatch(1).await(); // until the reconcile timeout interrupts it
        return Result.success();
      case 4:
        Thread.currentThread().interrupt(); // returns with its flag set
        return Result.requeueAfter(Duration.ofMillis(10));
      case 5:
        throw new TerminalException("invalid");
      case 6:
        return Result.requeue();
      default:
        return null;
    }
  }

  private static Result recurse(int depth) {
    return recurse(depth + 1);
  }

  private static CompletableFuture<StopResult<String>> stopAsync(
      Controller<String> c, Duration timeout) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return c.stop(timeout);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
  }
}
