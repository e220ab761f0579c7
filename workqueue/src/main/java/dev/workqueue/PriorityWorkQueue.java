package dev.workqueue;

import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import dev.workqueue.ratelimit.RateLimiter;
import dev.workqueue.ratelimit.RateLimiters;
import java.time.Duration;
import java.util.Optional;

/**
 * A rate-limiting queue whose ready items come out highest priority first: controller-runtime's
 * {@code priorityqueue.PriorityQueue} (the default queue of its controllers since v0.23). It is
 * a {@link RateLimitingQueue}, so a {@link dev.workqueue.controller.Controller} runs on it
 * unchanged, and it adds {@link #add(Object, AddOptions)} and {@link #getWithPriority()}.
 *
 * <p><b>Order.</b> Ready items are handed out by priority (higher first, any {@code int}),
 * first-in first-out within a priority. An item enters the line when it becomes ready: at
 * its add, when its delay ends, or at {@code done} if it was added while processing. Items
 * whose delays end are lined up in the order of their ready times.
 *
 * <p><b>De-duplication.</b> An item is in the queue at most once, however often it is added:
 *
 * <ul>
 *   <li>it keeps the <em>highest</em> priority it was added with, and a priority increase moves
 *       it to the end of its new priority's line (as if it had just been added there);
 *   <li>it keeps the <em>earliest</em> ready time: an add without delay makes a waiting item
 *       ready now; a longer delay never postpones it; a ready item never goes back to waiting;
 *   <li>an item added while it is processing is handed out again after its {@code done}, with
 *       the highest priority it was re-added with.
 * </ul>
 *
 * <p><b>Starvation protection</b> (not in controller-runtime, where items added at low
 * priority can wait forever under steady higher-priority load, controller-runtime#3496):
 * an item that has been ready for longer than the <em>aging threshold</em> is served ahead of
 * every priority; several such items are served oldest first. Strict priority order holds
 * until then. <b>On by default, threshold 5 minutes</b> ({@link
 * WorkQueueBuilder#agingThreshold}): an item ready for five minutes has waited longer than any
 * priority scheme intends, and a silently stuck key is worse for a controller than a late
 * high-priority one. {@link WorkQueueBuilder#disableAging()} gives controller-runtime's strict
 * order.
 *
 * <p><b>Shutdown.</b> {@link #shutDown} is idempotent and wakes every blocked {@code get};
 * waiting (delayed) items are discarded, ready items are still handed out, later adds are
 * ignored. {@link #shutDownWithDrain} waits until nothing is ready and nothing is processing.
 *
 * <pre>{@code
 * PriorityWorkQueue<String> queue = PriorityWorkQueue.create();
 * queue.add("default/initial", AddOptions.ofPriority(LOW_PRIORITY)); // initial list
 * queue.add("default/changed");                                       // 0: served first
 * PriorityItem<String> next = queue.getWithPriority().orElseThrow();
 * try {
 *   reconcile(next.item());
 *   queue.forget(next.item());
 * } catch (Exception e) {
 *   queue.add(next.item(), AddOptions.ofPriority(next.priority()).withRateLimited(true));
 * } finally {
 *   queue.done(next.item());
 * }
 * }</pre>
 *
 * <p>Thread-safe: any number of producers and consumers; one lock per queue, and re-adding an
 * item that is already ready at an equal or higher priority takes no lock (and still
 * publishes, as {@link WorkQueue#add} says). No thread per queue: waiting consumers release
 * delayed items themselves, as in {@link DelayingQueue}; the queue is built on the same engine
 * as the other queue kinds.
 *
 * @param <T> the item type
 */
public interface PriorityWorkQueue<T> extends RateLimitingQueue<T> {

  /**
   * -100: controller-runtime's {@code handler.LowPriority}, the priority its event handlers
   * give objects from the initial list so that real changes go first.
   */
  int LOW_PRIORITY = -100;

  /**
   * A priority queue on the default controller limiter (exponential 5 ms to 1000 s per item,
   * 10 per second with bursts of 100 overall), aging on at 5 minutes, the system clock, no
   * metrics.
   *
   * @param <T> the item type
   * @return a new, empty priority queue with a limiter of its own
   */
  static <T> PriorityWorkQueue<T> create() {
    return create(RateLimiters.defaultControllerRateLimiter());
  }

  /**
   * A priority queue on {@code limiter}, with the default settings otherwise.
   *
   * @param <T> the item type
   * @param limiter gives the delay of rate-limited adds; shared with whatever else uses it
   * @return a new, empty priority queue
   * @throws NullPointerException if {@code limiter} is null
   */
  static <T> PriorityWorkQueue<T> create(RateLimiter<? super T> limiter) {
    return new WorkQueueBuilder<T>().buildPriority(limiter);
  }

  /**
   * Adds {@code item} with a priority, a delay, or a delay from the rate limiter:
   * controller-runtime's {@code AddWithOpts}. The delay is {@code options.after()}; with
   * {@code rateLimited} it is the limiter's delay, or the smaller of the two if {@code after}
   * is not zero. A delay of zero makes the item ready now. See the class comment for how a
   * repeated add of the same item is merged. Ignored after shutdown (the limiter is not asked
   * then). Counts one retry in the metrics when it asks for a delay or is rate-limited.
   *
   * @param item the item to add, compared with {@code equals}/{@code hashCode}
   * @param options its priority, delay and whether to ask the limiter; {@link
   *     AddOptions#DEFAULT} for a plain add
   * @throws NullPointerException if {@code item} or {@code options} is null
   */
  void add(T item, AddOptions options);

  /** {@code add(item, AddOptions.DEFAULT)}: priority 0, ready now. */
  @Override
  void add(T item);

  /**
   * {@code add} at priority 0 after {@code delay}; a delay of zero or less adds now. Always
   * counts one retry, as {@link DelayingQueue#addAfter} does.
   */
  @Override
  void addAfter(T item, Duration delay);

  /** {@code add} at priority 0 after the limiter's delay; every call counts as a requeue. */
  @Override
  void addRateLimited(T item);

  /**
   * Like {@link #get}, and also reports the priority the item was queued at.
   *
   * @return the item and its priority; empty only when the queue is shut down and has nothing
   *     left to hand out
   * @throws InterruptedException if the thread is interrupted while waiting (nothing is taken)
   */
  Optional<PriorityItem<T>> getWithPriority() throws InterruptedException;

  /**
   * Like {@link #poll}, and also reports the priority the item was queued at.
   *
   * @param timeout the longest wait; zero or negative does not wait, only takes a ready item
   * @return the item and its priority, or empty if none came within the timeout or the queue
   *     is shut down and empty
   * @throws InterruptedException if the thread is interrupted while waiting
   * @throws NullPointerException if {@code timeout} is null
   */
  Optional<PriorityItem<T>> pollWithPriority(Duration timeout) throws InterruptedException;

  /**
   * Sets the ready time of a <em>waiting</em> item either way (client-go#131); an item that is
   * already ready stays ready (a ready item is never taken back). An item not in the queue is
   * added at priority 0 after {@code delay}; a delay of zero or less makes a waiting item ready
   * now. Ignored after shutdown; counts one retry.
   */
  @Override
  void reschedule(T item, Duration delay);

  /**
   * The number of items ready to be handed out: not those processing (even if re-added), not
   * those waiting for a delay. Informational.
   */
  @Override
  int size();

  /**
   * How an item is added: controller-runtime's {@code AddOpts}. Immutable; the canonical
   * constructor checks its arguments.
   *
   * <pre>{@code
   * AddOptions.ofPriority(10)                                  // ready now, priority 10
   * AddOptions.DEFAULT.withAfter(Duration.ofSeconds(30))        // priority 0, in 30 s
   * AddOptions.ofPriority(next.priority()).withRateLimited(true) // a retry that keeps its place
   * }</pre>
   *
   * @param priority higher is served first; default 0; any {@code int}
   * @param after how long until the item is ready; default zero (ready now); not negative
   * @param rateLimited whether to ask the queue's rate limiter for the delay; with a non-zero
   *     {@code after} the smaller of the two delays applies
   */
  record AddOptions(int priority, Duration after, boolean rateLimited) {
    /** Priority 0, ready now, not rate-limited: what a plain {@code add} does. */
    public static final AddOptions DEFAULT = new AddOptions(0, Duration.ZERO, false);

    /**
     * Options with every field given.
     *
     * @param priority higher is served first; any {@code int}
     * @param after how long until the item is ready; zero for now; not negative
     * @param rateLimited whether to ask the queue's rate limiter for the delay
     * @throws NullPointerException if {@code after} is null
     * @throws IllegalArgumentException if {@code after} is negative
     */
    public AddOptions {
      Checks.nonNegative(after, "after");
    }

    /**
     * Priority {@code priority}, ready now.
     *
     * @param priority higher is served first; any {@code int}
     * @return options for an add at {@code priority} without delay, not rate-limited
     */
    public static AddOptions ofPriority(int priority) {
      return priority == 0 ? DEFAULT : new AddOptions(priority, Duration.ZERO, false);
    }

    /**
     * These options with priority {@code priority}.
     *
     * @param priority higher is served first; any {@code int}
     * @return new options; this instance is unchanged
     */
    public AddOptions withPriority(int priority) {
      return new AddOptions(priority, after, rateLimited);
    }

    /**
     * These options with delay {@code after}.
     *
     * @param after how long until the item is ready; zero for now
     * @return new options; this instance is unchanged
     * @throws NullPointerException if {@code after} is null
     * @throws IllegalArgumentException if {@code after} is negative
     */
    public AddOptions withAfter(Duration after) {
      return new AddOptions(priority, after, rateLimited);
    }

    /**
     * These options with the rate limiter asked for the delay, or not.
     *
     * @param rateLimited whether to ask the limiter; with a non-zero {@code after} the smaller
     *     of the two delays applies
     * @return new options; this instance is unchanged
     */
    public AddOptions withRateLimited(boolean rateLimited) {
      return new AddOptions(priority, after, rateLimited);
    }
  }
}
