package dev.workqueue.controller;

import java.time.Duration;

/**
 * A reconcile loop: N workers take keys from a rate-limiting queue and pass them to a
 * {@link Reconciler}, with {@code done} always and retries with back-off (see
 * {@link Reconciler} for the outcome table). A key is never reconciled by two workers at once.
 *
 * <pre>{@code
 * Controller<String> controller = Controller.<String>builder("configmaps")
 *     .reconciler(key -> { sync(key); return Result.success(); })
 *     .workers(4)
 *     .build();
 * controller.start();
 * // from your informer's event handler (or the kubernetes-fabric8 module's EnqueueHandler):
 * controller.add(namespace + "/" + name);
 * ...
 * controller.stop(Duration.ofSeconds(30));
 * }</pre>
 *
 * <p><b>Lifecycle.</b> {@link #start} starts the workers; {@link #stop} stops taking work, lets
 * running reconciles finish (and, if configured, drains the queue), and waits for the workers
 * up to a deadline. A stopped controller can be started again, with a fresh queue (leadership
 * can be lost and regained). Keys added before {@code start} wait in the queue; keys added
 * while stopped are kept (each once, without its delay) and queued by the next {@code start}:
 * no add is lost.
 *
 * <p>Thread-safe.
 *
 * @param <T> the key type
 */
public interface Controller<T> extends AutoCloseable {

  /**
   * A builder for a controller named {@code name}: its metrics label, its thread names, its
   * logger ({@code dev.workqueue.controller.Controller.<name>}, so its level can be set alone)
   * and the {@code controller} key of its MDC. Two controllers of one name cannot run at once
   * on one metrics provider: the second {@link #start} is refused, as their series would mix.
   *
   * @param <T> the key type
   * @param name the controller's name; also the name of its default queue; not empty
   * @return a new builder; only its reconciler must be set
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  static <T> ControllerBuilder<T> builder(String name) {
    return new ControllerBuilder<>(name);
  }

  /**
   * The name given to the builder.
   *
   * @return the controller's name, the {@code controller} label of its metrics
   */
  String name();

  /**
   * Starts the workers.
   *
   * @throws IllegalStateException if already running, or if another controller of this name
   *     is running on the same metrics provider (controller or queue metrics)
   */
  void start();

  /**
   * Whether the controller was started and not stopped.
   *
   * @return true from {@link #start} until a {@link #stop} returns (after a stop called from a
   *     reconcile, workers may still be finishing)
   */
  boolean isRunning();

  /**
   * Enqueues {@code key} for reconciliation. While stopped, kept for the next start.
   *
   * @param key the key to reconcile; one reconcile covers any number of adds before it starts
   * @throws NullPointerException if {@code key} is null
   */
  void add(T key);

  /**
   * Enqueues {@code key} after {@code delay}. While stopped, kept for the next start (which
   * queues it at once).
   *
   * @param key the key to reconcile
   * @param delay how long from now, on the queue's clock; zero or negative enqueues it now
   * @throws NullPointerException if {@code key} or {@code delay} is null
   */
  void addAfter(T key, Duration delay);

  /**
   * Enqueues {@code key} with a priority, a delay or a rate limit: on a controller whose queue
   * is a {@link dev.workqueue.PriorityWorkQueue} ({@link ControllerBuilder#priorityQueue}),
   * that queue's {@code add(key, options)}. On any other queue a priority other than 0 is
   * refused; {@code rateLimited} means {@code addRateLimited} (the limiter's delay alone),
   * otherwise {@code addAfter(after)}, or {@code add} when {@code after} is zero. While stopped,
   * kept for the next start, which queues it at once at the highest priority it was added with
   * meanwhile.
   *
   * @param key the key to reconcile
   * @param options its priority, delay and whether to ask the rate limiter
   * @throws NullPointerException if {@code key} or {@code options} is null
   * @throws IllegalArgumentException if {@code options} has a priority other than 0 and the
   *     queue is not a {@link dev.workqueue.PriorityWorkQueue}; nothing is added
   */
  void add(T key, dev.workqueue.PriorityWorkQueue.AddOptions options);

  /**
   * Stops: no new reconcile starts (unless draining: then the queued keys are worked off
   * first), running reconciles finish, workers exit. Waits up to {@code timeout} (on the
   * controller's clock); at the deadline the workers still reconciling are interrupted and
   * reported. Idempotent: stopping a stopped controller returns a completed result. A reconcile
   * that outlives the deadline (it ignores the interrupt) still owns its key: a later {@link
   * #start} does not reconcile that key until it has ended (the key is looked at again every
   * 100 ms on the controller's clock), so one key is never reconciled twice at once.
   *
   * <p>Called from inside a reconcile of this controller, {@code stop} cannot wait for the
   * reconcile it is called from: it starts the stop and returns at once, not completed, with
   * the keys being reconciled (the caller's among them). The workers then finish their
   * reconciles (and, with drain on stop, the queued keys) and exit by themselves; until they
   * have, {@link #start} refuses, and another {@code stop} waits for them as above. (Only the
   * reconciling thread itself is recognised: a reconciler that hands {@code stop} to another
   * thread and waits for it waits out the timeout.)
   *
   * @param timeout how long to wait for the workers (and the drain, if configured); not
   *     negative; zero does not wait, and reconciles still running are interrupted
   * @return whether the stop completed in time, and the keys still being reconciled
   * @throws InterruptedException if the caller is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  StopResult<T> stop(Duration timeout) throws InterruptedException;

  /**
   * Waits until the workers of the current run have exited: after a {@link #stop} (made by any
   * thread), or after every worker died of a fatal {@code Error} (each is logged). For a main
   * thread with nothing else to do, as the workers are daemon threads. Returns at once if the
   * controller is not running.
   *
   * @param timeout how long to wait, on the controller's clock; not negative
   * @return true if no worker of the run is left; false if the timeout passed first
   * @throws InterruptedException if the caller is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   * @throws IllegalArgumentException if {@code timeout} is negative
   */
  boolean awaitTermination(Duration timeout) throws InterruptedException;

  /**
   * A snapshot for health checks: running or not, live and busy workers, queued and waiting
   * keys, the time since the last reconcile ended. Cheap enough for a probe every few seconds
   * (it takes the queue's lock to count).
   *
   * @return the snapshot
   */
  ControllerStatus status();

  /**
   * {@code stop} with the builder's stop timeout (default 30 s), for try-with-resources: it
   * throws no checked exception. An interrupt of the calling thread does not cut the stop short;
   * it stays set for the caller.
   */
  @Override
  void close();
}
