package dev.workqueue.controller;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.WorkQueueBuilder;
import dev.workqueue.clock.Clock;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * What a controller uses where its builder was given nothing: the default queue (rate-limiting
 * or priority, named after the controller) and the worker threads (platform or virtual, named
 * {@code workqueue-worker-<name>-<n>}).
 */
final class ControllerDefaults {
  private ControllerDefaults() {}

  /** The builder's queue factory, or one of default queues on its limiter, clock and metrics. */
  static <T> Supplier<? extends RateLimitingQueue<T>> queueFactory(ControllerBuilder<T> b) {
    if (b.queueFactory != null) {
      return b.queueFactory;
    }
    String name = b.name;
    RateLimiter<? super T> shared = b.rateLimiter;
    Clock c = b.clock;
    MetricsProvider p = b.queueMetrics;
    boolean priority = b.priorityQueue;
    ReconcileTracing<T> tracing = b.tracing;
    return () -> {
      WorkQueueBuilder<T> qb = WorkQueue.<T>builder().name(name).clock(c).metricsProvider(p);
      if (tracing != null) {
        qb.tracer(tracing);
      }
      RateLimiter<? super T> limiter =
          shared != null ? shared : RateLimiters.defaultControllerRateLimiter(c);
      return priority ? qb.buildPriority(limiter) : qb.buildRateLimiting(limiter);
    };
  }

  /**
   * The builder's thread factory; with an executor, one that must not be called; else daemon
   * platform threads.
   */
  static ThreadFactory threadFactory(ControllerBuilder<?> b) {
    if (b.threadFactory != null) {
      return b.threadFactory;
    }
    if (b.executor != null) {
      return r -> {
        throw new AssertionError("executor in use");
      };
    }
    String name = b.name;
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "workqueue-worker-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Virtual threads (Java 21 or later) named as the default platform threads are, looked up at
   * run time since the toolkit is built for Java 17.
   *
   * @throws UnsupportedOperationException on a Java without virtual threads (17 to 20)
   */
  static ThreadFactory virtualThreads(String name) {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      builder = Class.forName("java.lang.Thread$Builder$OfVirtual")
          .getMethod("name", String.class, long.class)
          .invoke(builder, "workqueue-worker-" + name + "-", 1L);
      return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory")
          .invoke(builder);
    } catch (NoSuchMethodException | ClassNotFoundException e) {
      throw new UnsupportedOperationException("virtual threads need Java 21 or later; this is"
          + " Java " + Runtime.version().feature(), e);
    } catch (ReflectiveOperationException e) {
      throw new UnsupportedOperationException("virtual threads are not available: " + e, e);
    }
  }
}
