package dev.workqueue.benchmarks;

import dev.workqueue.controller.Controller;
import dev.workqueue.controller.Result;
import dev.workqueue.controller.StopResult;
import io.kubernetes.client.extended.controller.DefaultController;
import io.kubernetes.client.extended.controller.reconciler.Request;
import io.kubernetes.client.extended.workqueue.DefaultRateLimitingQueue;
import io.kubernetes.client.extended.workqueue.RateLimitingQueue;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * The reconcile loops {@link ControllerBenchmark} compares, by its {@code controller} param:
 * {@code toolkit}, {@code peer}, {@code executor}. Each gets the same {@code keys} distinct
 * objects named {@code bench/obj-<i>} (a {@code String} for the toolkit and the pool, the peer's
 * {@code Request("bench", "obj-<i>")}), built before the start, and a no-op reconciler that runs
 * {@code reconciled} and reports success. Every contender runs with its defaults otherwise.
 */
enum ControllerContender {
  /**
   * The toolkit's {@code Controller.builder(name)}: its default rate-limiting queue and limiter
   * (client-go's), no-op metrics (the default), daemon worker threads of its own.
   */
  TOOLKIT {
    @Override
    ControllerUnderTest start(int workers, int keys, Runnable reconciled) {
      String[] names = names(keys);
      Controller<String> c = Controller.<String>builder(NAME)
          .reconciler(key -> {
            reconciled.run();
            return Result.success();
          })
          .workers(workers)
          .build();
      c.start();
      return new Started(i -> c.add(names[i]), () -> {
        StopResult<String> stop = c.stop(STOP_TIMEOUT);
        if (!stop.completed()) {
          throw new IllegalStateException("toolkit controller did not stop: " + stop);
        }
      });
    }
  },
  /**
   * client-java-extended's {@code DefaultController}, built as its {@code
   * DefaultControllerBuilder.build()} does (which needs a {@code SharedInformerFactory} from the
   * API client this module leaves out): its default {@code DefaultRateLimitingQueue} and {@code
   * DefaultControllerRateLimiter}, a scheduled pool of {@code workers} threads named {@code
   * <name>-<n>}. Its {@code run()} schedules the worker loops on that pool and blocks until they
   * exit, so it runs on a thread of its own; keys go to its work queue, as its informer watches
   * add them. Its Prometheus metrics (a work-queue length gauge set twice and a reconcile
   * counter incremented once per reconcile, on the default registry) cannot be turned off.
   */
  PEER {
    @Override
    @SuppressWarnings("unchecked") // the peer's constructor takes a varargs of Supplier<Boolean>
    ControllerUnderTest start(int workers, int keys, Runnable reconciled) {
      String[] names = names(keys);
      Request[] requests = new Request[keys];
      for (int i = 0; i < keys; i++) {
        requests[i] = new Request(NAMESPACE, names[i].substring(NAMESPACE.length() + 1));
      }
      ExecutorService waiting =
          Executors.newSingleThreadExecutor(daemonThreads(NAME + "-waiting-"));
      RateLimitingQueue<Request> queue = new DefaultRateLimitingQueue<>(waiting);
      io.kubernetes.client.extended.controller.reconciler.Result success =
          new io.kubernetes.client.extended.controller.reconciler.Result(false);
      DefaultController c = new DefaultController(NAME, request -> {
        reconciled.run();
        return success;
      }, queue);
      c.setWorkerCount(workers);
      ScheduledExecutorService pool =
          Executors.newScheduledThreadPool(workers, daemonThreads(NAME + "-"));
      c.setWorkerThreadPool(pool);
      Thread runner = new Thread(c::run, "peer-controller-run");
      runner.setDaemon(true);
      runner.start();
      return new Started(i -> queue.add(requests[i]), () -> {
        c.shutdown(); // the queue, then the pool
        runner.join(STOP_TIMEOUT.toMillis()); // run() returns when every worker exited
        waiting.shutdownNow(); // its delaying queue's thread polls every 10 s otherwise
        boolean stopped = !runner.isAlive()
            && pool.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            && waiting.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        if (!stopped) {
          throw new IllegalStateException("peer controller did not stop");
        }
      });
    }
  },
  /**
   * A fixed pool of {@code workers} threads ({@code Executors.newFixedThreadPool}) given one
   * pre-built no-op task per key with {@code execute}: no de-duplication, no per-key state, no
   * retries; the cost of handing work to threads at all.
   */
  EXECUTOR {
    @Override
    ControllerUnderTest start(int workers, int keys, Runnable reconciled) {
      String[] names = names(keys);
      Runnable[] tasks = new Runnable[keys];
      for (int i = 0; i < keys; i++) {
        tasks[i] = new KeyTask(names[i], reconciled);
      }
      ExecutorService pool = Executors.newFixedThreadPool(workers, daemonThreads(NAME + "-pool-"));
      return new Started(i -> pool.execute(tasks[i]), () -> {
        pool.shutdown();
        if (!pool.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("executor did not stop");
        }
      });
    }
  };

  static final String NAME = "bench";
  static final String NAMESPACE = "bench";
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Starts {@code workers} workers over {@code keys} pre-built keys; each reconcile (task) of a
   * key runs {@code reconciled} once, on the worker's thread.
   */
  abstract ControllerUnderTest start(int workers, int keys, Runnable reconciled);

  /** The contender a {@code @Param} value names, case-insensitively. */
  static ControllerContender named(String name) {
    return valueOf(name.toUpperCase(java.util.Locale.ROOT));
  }

  /** {@code keys} distinct key names {@code bench/obj-<i>}. */
  static String[] names(int keys) {
    String[] names = new String[keys];
    for (int i = 0; i < keys; i++) {
      names[i] = NAMESPACE + "/obj-" + i;
    }
    return names;
  }

  /** Daemon threads named {@code prefix<n>}, counted from 1. */
  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** How a started contender stops. */
  @FunctionalInterface
  private interface Stopper {
    void stop() throws Exception;
  }

  /** A started contender: {@code add} enqueues the key of an index, {@code stopper} stops it. */
  @SuppressWarnings("try") // as ControllerUnderTest
  private record Started(IntConsumer add, Stopper stopper) implements ControllerUnderTest {
    @Override
    public void enqueue(int from, int to) {
      for (int i = from; i < to; i++) {
        add.accept(i);
      }
    }

    @Override
    public void close() throws Exception {
      stopper.stop();
    }
  }

  /** The pool's task for one key: the no-op reconcile of that key. */
  private record KeyTask(String key, Runnable reconciled) implements Runnable {
    @Override
    public void run() {
      reconciled.run();
    }
  }
}
