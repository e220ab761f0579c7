package dev.workqueue.controller;

import dev.workqueue.PriorityWorkQueue;
import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.RateLimitingQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.helpers.NOPMDCAdapter;

/**
 * The controller as its callers see it: adds (kept across stops by {@link KeptKeys}, held by a
 * back-off with {@code deferEventsDuringBackoff}), its status, and the lifecycle calls, which
 * {@link ControllerLifecycle} carries out. The parts are wired here: the lifecycle starts
 * {@link WorkerLoop}s, whose workers reconcile each key through a {@link ReconcileStep} that
 * applies its outcome ({@link ReconcileOutcomes}).
 */
final class DefaultController<T> implements Controller<T> {
  private final String name;
  private final int workers;
  private final Clock clock;
  private final Duration stopTimeout;
  private final KeptKeys<T> keys;
  private final LiveRuns<T> liveRuns = new LiveRuns<>();
  private final ControllerLifecycle<T> lifecycle;

  DefaultController(ControllerBuilder<T> b) {
    this.name = b.name;
    this.workers = b.workers;
    this.clock = b.clock;
    this.stopTimeout = b.stopTimeout;
    Logger log = LoggerFactory.getLogger(Controller.class.getName() + "." + name);
    // After getLogger, which binds slf4j: the adapter is the binding's from then on (one asked
    // for during another thread's binding is a stand-in that keeps values: MDC kept, no harm).
    boolean mdc = b.mdcKeepsValues != null ? b.mdcKeepsValues
        : !(MDC.getMDCAdapter() instanceof NOPMDCAdapter);
    ReconcileOutcomes<T> outcomes = new ReconcileOutcomes<>(name, log, b.metrics, workers,
        b.maxRetries, b.droppedKeyHandler);
    this.keys = new KeptKeys<>(ControllerDefaults.queueFactory(b));
    ReconcileStep<T> step = new ReconcileStep<>(b, log, mdc, outcomes, keys);
    WorkerLoop<T> loop = new WorkerLoop<>(b, log, outcomes, step, keys, liveRuns);
    this.lifecycle = new ControllerLifecycle<>(b, log, keys, liveRuns, loop);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public void add(T key) {
    Checks.nonNull(key, "key");
    if (!held(key)) {
      keys.addOrKeep(keys.queue(), key); // enqueue(key, q -> q.add(key)) without its allocation
    }
  }

  /** Whether an add of {@code key} is held by its back-off ({@code deferEventsDuringBackoff}). */
  private boolean held(T key) {
    ControllerRun<T> r = lifecycle.run();
    return r != null && r.holdAdd(key);
  }

  @Override
  public void addAfter(T key, Duration delay) {
    Checks.nonNull(key, "key");
    Checks.nonNull(delay, "delay");
    keys.enqueue(key, q -> q.addAfter(key, delay));
  }

  @Override
  public void add(T key, AddOptions options) {
    Checks.nonNull(key, "key");
    Checks.nonNull(options, "options");
    if (options.priority() != 0 && !(keys.queue() instanceof PriorityWorkQueue)) {
      throw new IllegalArgumentException("options: priority " + options.priority() + " needs a"
          + " priority queue (ControllerBuilder.priorityQueue(true), or a queue(...) factory of"
          + " PriorityWorkQueues); controller " + name + "'s queue has no priorities");
    }
    if (!options.rateLimited() && options.after().isZero() && held(key)) {
      return;
    }
    keys.enqueue(key, options.priority(), q -> {
      if (q instanceof PriorityWorkQueue<T> pq) {
        pq.add(key, options);
      } else if (options.rateLimited()) {
        q.addRateLimited(key);
      } else if (options.after().isZero()) {
        q.add(key);
      } else {
        q.addAfter(key, options.after());
      }
    });
  }

  /** The current queue (tests). */
  RateLimitingQueue<T> queue() {
    return keys.queue();
  }

  @Override
  public void start() {
    lifecycle.start();
  }

  @Override
  public boolean isRunning() {
    return lifecycle.isRunning();
  }

  @Override
  public StopResult<T> stop(Duration timeout) throws InterruptedException {
    return lifecycle.stop(timeout);
  }

  @Override
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return lifecycle.awaitTermination(timeout);
  }

  @Override
  public ControllerStatus status() {
    ControllerRun<T> r = lifecycle.run();
    RateLimitingQueue<T> q = keys.queue();
    // Waiting first: a key that falls due in between is then counted twice, not missed.
    int waiting = q.isShuttingDown() ? 0 : q.waitingCount();
    int queued = q.isShuttingDown() ? 0 : q.size();
    int busy = liveRuns.busyWorkers();
    long ended = liveRuns.lastEnd();
    Optional<Duration> since = ended == LiveRuns.NEVER ? Optional.empty()
        : Optional.of(Duration.ofNanos(Math.max(0, clock.nanoTime() - ended)));
    return new ControllerStatus(r != null, workers, r == null ? 0 : r.live(),
        busy, queued, waiting, since);
  }

  @Override
  public void close() {
    boolean interrupted = Thread.interrupted(); // stop first; the caller gets it back
    try {
      stop(stopTimeout);
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
