package dev.workqueue;

import dev.workqueue.clock.Clock;
import dev.workqueue.metrics.MetricsProvider;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.function.Function;

/**
 * The kinds of queue the contract suite ({@link QueueContractTest}) runs against: each is built
 * from a {@link WorkQueueBuilder} that the test configured (clock, name, metrics provider,
 * scheduler), so every kind gets exactly the same settings.
 *
 * <p>Capabilities differ: {@link #PLAIN} has no {@code addAfter}, and only the rate-limiting
 * kinds have {@code addRateLimited}. A test that needs a capability asks {@link #delays()} or
 * {@link #rateLimits()} and skips the kind otherwise ({@code assumeTrue}), or uses the
 * capability for part of the test only.
 *
 * <p>The suite's keys are Strings; {@link #FAIR} groups them by their first character
 * ({@link #FIRST_CHAR}), so keys that share it ({@code "k/a"}, {@code "k/b"}) are one fairness
 * group, in which order is first-in first-out as in every other kind.
 */
enum QueueKind {
  /** {@code build()}: client-go's basic queue. */
  PLAIN {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.build();
    }
  },
  /** {@code buildDelaying()}: client-go's delaying queue (an add leaves a delayed add be). */
  DELAYING {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.buildDelaying();
    }
  },
  /**
   * {@code build()} whose consumers count as crowded from the start: a new item joins the line
   * under the lock, not through the intake (see {@code CrowdWindow}); a run of takes by
   * one thread turns that off again.
   */
  PLAIN_CROWDED {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.startCrowdedForTests().build();
    }
  },
  /** {@code buildDelaying()} whose consumers count as crowded from the start. */
  DELAYING_CROWDED {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.startCrowdedForTests().buildDelaying();
    }
  },
  /** {@code buildRateLimiting(limiter)}: client-go's rate-limiting queue. */
  RATE_LIMITING {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.buildRateLimiting(limiter());
    }
  },
  /** {@code buildPriority(limiter)}: controller-runtime's priority queue. */
  PRIORITY {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.buildPriority(limiter());
    }
  },
  /** {@code addSupersedesDelayed(true).buildDelaying()}: an add takes a delayed add's place. */
  SUPERSEDE {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.addSupersedesDelayed(true).buildDelaying();
    }
  },
  /** {@code fairBy(dimension).buildRateLimiting(limiter)}: round-robin across groups. */
  FAIR {
    @Override
    <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension) {
      return b.fairBy(dimension).buildRateLimiting(limiter());
    }
  };

  /** FAIR's dimension for the suite's String keys: the first character. */
  static final Function<String, String> FIRST_CHAR = k -> k.substring(0, 1);

  /**
   * Builds this kind from {@code b}, which the caller has configured; {@code dimension} is used
   * by {@link #FAIR} only. For tests whose key type is not String.
   */
  abstract <T> WorkQueue<T> build(WorkQueueBuilder<T> b, Function<? super T, ?> dimension);

  /** Whether this kind is a {@link DelayingQueue} ({@code addAfter}, {@code cancel}...). */
  boolean delays() {
    return this != PLAIN && this != PLAIN_CROWDED;
  }

  /** Whether this kind is a {@link RateLimitingQueue} ({@code addRateLimited}...). */
  boolean rateLimits() {
    return this == RATE_LIMITING || this == PRIORITY || this == FAIR;
  }

  /** This kind, from a builder the caller configured, grouped by {@link #FIRST_CHAR} if FAIR. */
  WorkQueue<String> build(WorkQueueBuilder<String> b) {
    return build(b, FIRST_CHAR);
  }

  /** This kind on {@code clock}, unnamed (no metrics). */
  WorkQueue<String> build(Clock clock) {
    return build(WorkQueue.<String>builder().clock(clock));
  }

  /** This kind on {@code clock}, named {@code name}, its metrics going to {@code metrics}. */
  WorkQueue<String> build(Clock clock, String name, MetricsProvider metrics) {
    return build(WorkQueue.<String>builder().clock(clock).name(name).metricsProvider(metrics));
  }

  /** This kind as a delaying queue; only for kinds that {@link #delays()}. */
  DelayingQueue<String> delaying(WorkQueueBuilder<String> b) {
    requireDelays();
    return (DelayingQueue<String>) build(b);
  }

  /** This kind on {@code clock} as a delaying queue, unnamed. */
  DelayingQueue<String> delaying(Clock clock) {
    return delaying(WorkQueue.<String>builder().clock(clock));
  }

  /** This kind on {@code clock} as a delaying queue, named, with metrics. */
  DelayingQueue<String> delaying(Clock clock, String name, MetricsProvider metrics) {
    return delaying(
        WorkQueue.<String>builder().clock(clock).name(name).metricsProvider(metrics));
  }

  private void requireDelays() {
    if (!delays()) {
      throw new IllegalStateException(this + " does not delay: guard the test with delays()");
    }
  }

  /**
   * A fresh limiter per queue: exponential 1 ms .. 1 s per item. The contract tests do not
   * depend on its delays; the kinds' own test classes check the limiter calls.
   */
  private static <T> RateLimiter<T> limiter() {
    return RateLimiters.exponential(Duration.ofMillis(1), Duration.ofSeconds(1));
  }
}
