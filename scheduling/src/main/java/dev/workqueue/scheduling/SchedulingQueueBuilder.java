package dev.workqueue.scheduling;

import dev.workqueue.clock.Clock;
import dev.workqueue.internal.Checks;
import dev.workqueue.internal.TimeMath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds scheduling queues. The defaults are kube-scheduler's (the newest behaviour): higher
 * priority first then earlier timestamp; back-off 1 s doubling to 10 s; at most 5 min in the
 * pool; pop-from-backoff on with 1 s window alignment; kube's numeric action matching quirk
 * on. Every setter checks its argument at once and returns this builder.
 *
 * <p>Not thread-safe; a builder may build several independent queues.
 *
 * @param <K> the key type
 * @param <T> the item type
 */
public final class SchedulingQueueBuilder<K, T> {
  private static final Logger LOG = LoggerFactory.getLogger(SchedulingQueue.class);

  static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofSeconds(1);
  static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
  static final Duration DEFAULT_MAX_STAY_IN_POOL = Duration.ofMinutes(5);
  static final int DEFAULT_MAX_IN_FLIGHT_EVENTS = 10_000;

  final Function<? super T, ? extends K> keyFunction;
  String name;
  Clock clock = Clock.system();
  SchedulingMetricsProvider metricsProvider = SchedulingMetricsProvider.noop();
  ToIntFunction<? super T> priority = item -> 0;
  Comparator<? super QueuedItem<K, T>> comparator;
  long initialBackoffNanos = DEFAULT_INITIAL_BACKOFF.toNanos();
  long maxBackoffNanos = DEFAULT_MAX_BACKOFF.toNanos();
  long maxStayInPoolNanos = DEFAULT_MAX_STAY_IN_POOL.toNanos();
  boolean popFromBackoff = true;
  boolean alignBackoffToWindow = true;
  boolean numericActionMatching = true;
  int maxInFlightEvents = DEFAULT_MAX_IN_FLIGHT_EVENTS;
  boolean indexPoolByEvent;
  BiFunction<? super T, ? super T, ? extends Collection<ClusterEvent>> updateEvents =
      (o, n) -> List.of(ClusterEvent.ITEM_UPDATE);
  final List<Registrations.Hint<T>> hints = new ArrayList<>();
  final List<Gate<T>> gates = new ArrayList<>();

  SchedulingQueueBuilder(Function<? super T, ? extends K> keyFunction) {
    this.keyFunction = Checks.nonNull(keyFunction, "keyFunction");
  }

  /**
   * The name under which metrics are recorded. Default: none (no metrics).
   *
   * @param name the queue's name in its metrics, not empty; give each queue its own, as
   *     queues sharing a name on one provider mix their series
   * @return this builder
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public SchedulingQueueBuilder<K, T> name(String name) {
    Checks.nonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    this.name = name;
    return this;
  }

  /**
   * The time source and scheduler of the periodic flushes. Default: {@link Clock#system()}.
   *
   * @param clock gives the timestamps and back-off expiries and runs the back-off (1 s) and
   *     pool (30 s) flushes; a fake clock makes a queue's timing deterministic in tests
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> clock(Clock clock) {
    this.clock = Checks.nonNull(clock, "clock");
    return this;
  }

  /**
   * Where a named queue's metrics go. Default: {@link SchedulingMetricsProvider#noop()}.
   *
   * @param provider creates the queue's gauges and counters at build time and lazily after;
   *     used only if a {@link #name} is set
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> metricsProvider(SchedulingMetricsProvider provider) {
    this.metricsProvider = Checks.nonNull(provider, "provider");
    return this;
  }

  /**
   * The priority used by the default order (higher first, then earlier timestamp). Default:
   * every item 0. Ignored when a {@link #comparator} is set.
   *
   * @param priority an item's priority, any {@code int}, larger first; it is called on every
   *     heap comparison under the queue's locks, so it must be cheap; if it throws, the two
   *     items compared count as equal (ordered by arrival), logged once per queue
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> priority(ToIntFunction<? super T> priority) {
    this.priority = Checks.nonNull(priority, "priority");
    return this;
  }

  /**
   * The order of activeQ (least first) and the tie-breaker within a back-off window. Items
   * that compare equal are ordered by {@link QueuedItem#sequence}. It must not change its
   * answer for items while they are queued (it may look at the item: {@code update}
   * re-sorts). Default: higher {@link #priority} first, then earlier timestamp.
   *
   * @param comparator orders the queued items, least first; called under the queue's locks
   *     (activeQ's and backoffQ's), so it must be cheap and never call into the queue; if it
   *     throws, the two items count as equal (ordered by arrival), logged once per queue
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> comparator(Comparator<? super QueuedItem<K, T>> comparator) {
    this.comparator = Checks.nonNull(comparator, "comparator");
    return this;
  }

  /**
   * The back-off after the first failure; it doubles per failure up to {@link #maxBackoff}.
   * Default: 1 s. Zero disables back-off.
   *
   * @param initial the back-off after the first failure, zero or positive, nanosecond
   *     precision; durations beyond about 146 years are clamped
   * @return this builder
   * @throws IllegalArgumentException if negative
   */
  public SchedulingQueueBuilder<K, T> initialBackoff(Duration initial) {
    Checks.nonNegative(initial, "initial");
    this.initialBackoffNanos = TimeMath.delayNanos(initial);
    return this;
  }

  /**
   * The longest back-off. Default: 10 s. Must be at least the initial back-off (checked by
   * {@link #build}).
   *
   * @param max the cap of the doubling back-off, zero or positive, nanosecond precision
   * @return this builder
   * @throws IllegalArgumentException if negative
   */
  public SchedulingQueueBuilder<K, T> maxBackoff(Duration max) {
    Checks.nonNegative(max, "max");
    this.maxBackoffNanos = TimeMath.delayNanos(max);
    return this;
  }

  /**
   * How long an item may stay in the pool before the timeout flush (every 30 s) moves it,
   * strictly longer than this. Default: 5 min.
   *
   * @param max the longest stay in the pool, positive, counted from the item's timestamp (its
   *     add or last failure) or its last timeout flush, whichever is later; as the flush runs
   *     every 30 s, a stay may exceed it by up to 30 s
   * @return this builder
   * @throws IllegalArgumentException if not positive
   */
  public SchedulingQueueBuilder<K, T> maxStayInPool(Duration max) {
    Checks.nonNull(max, "max");
    if (max.isNegative() || max.isZero()) {
      throw new IllegalArgumentException("max must be positive, was " + max);
    }
    this.maxStayInPoolNanos = TimeMath.delayNanos(max);
    return this;
  }

  /**
   * Whether {@code pop} takes the head of backoffQ when activeQ is empty (never an item whose
   * last failure was an error). Default: true, as kube-scheduler's
   * {@code SchedulerPopFromBackoffQ}.
   *
   * @param enabled true to let an idle consumer try a rejected item before its back-off ends;
   *     false to hand out only items of activeQ
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> popFromBackoff(boolean enabled) {
    this.popFromBackoff = enabled;
    return this;
  }

  /**
   * Whether back-off expiries are truncated to 1 s windows, items of one window ordered by
   * the activeQ order; an item whose window is the current one is still backing off.
   * Default: true (kube-scheduler aligns whenever pop-from-backoff is on).
   *
   * @param enabled true to align expiries to 1 s windows; false to use exact expiries
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> alignBackoffToWindow(boolean enabled) {
    this.alignBackoffToWindow = enabled;
    return this;
  }

  /**
   * Whether a registration also requires the incoming action mask to be numerically at most
   * the registered one, as kube-scheduler's {@code ClusterEvent.Match} does. Default: true.
   *
   * @param enabled true for kube-scheduler's matching (an incoming {@code ADD|UPDATE} does not
   *     match a registration for {@code ADD}); false to match whenever the masks intersect
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> numericActionMatching(boolean enabled) {
    this.numericActionMatching = enabled;
    return this;
  }

  /**
   * The most events the in-flight log keeps (kube has none and grew to 60k, #120622); when
   * full the oldest is dropped and attempts that missed it retry after back-off. Default:
   * 10000.
   *
   * @param max the capacity of the log in events, positive; each entry keeps the event and
   *     its old and new objects until no attempt in flight needs it
   * @return this builder
   * @throws IllegalArgumentException if not positive
   */
  public SchedulingQueueBuilder<K, T> maxInFlightEvents(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("max must be positive, was " + max);
    }
    this.maxInFlightEvents = max;
    return this;
  }

  /**
   * Whether the pool files each item under the registered events that can move it, so that
   * {@code onEvent} visits only those items instead of the whole pool (kube-scheduler scans
   * the whole pool on every event, #138095). Costs a map entry per item and registered
   * event. Wildcard events still visit every item. Default: false, as kube-scheduler.
   *
   * @param enabled true to index the pool by registered event; worth it for large pools with
   *     many distinct events
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> indexPoolByEvent(boolean enabled) {
    this.indexPoolByEvent = enabled;
    return this;
  }

  /**
   * The events an {@code update(old, new)} stands for (kube: label, spec, toleration updates
   * of a pod). Default: {@link ClusterEvent#ITEM_UPDATE}. Called under the main lock.
   *
   * @param updateEvents maps {@code (oldItem, newItem)} to the events the change stands for,
   *     judged one by one against the hints; an empty collection means the update moves
   *     nothing out of the pool (a gated item is still re-checked by its gates)
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> updateEvents(
      BiFunction<? super T, ? super T, ? extends Collection<ClusterEvent>> updateEvents) {
    this.updateEvents = Checks.nonNull(updateEvents, "updateEvents");
    return this;
  }

  /**
   * Registers rejector {@code rejector}'s interest in {@code event}: an item it rejected may
   * leave the pool on a matching event if {@code hint} says QUEUE.
   *
   * @param rejector the rejector's name, as it appears in {@link Rejectors}
   * @param event the events of interest: a registration, matched against incoming events as
   *     {@link ClusterEvent#matches} describes
   * @param hint decides per item and event whether to move the item ({@link QueueingHint#QUEUE})
   *     or leave it ({@link QueueingHint#SKIP}); called under the main lock
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> hint(String rejector, ClusterEvent event,
      QueueingHintFunction<? super T> hint) {
    Checks.nonNull(rejector, "rejector");
    Checks.nonNull(event, "event");
    Checks.nonNull(hint, "hint");
    hints.add(new Registrations.Hint<>(rejector, event, hint));
    return this;
  }

  /**
   * Registers {@code rejector}'s interest in {@code event} without a function: always QUEUE.
   *
   * @param rejector the rejector's name, as it appears in {@link Rejectors}
   * @param event the events of interest: any matching event moves the items this rejector
   *     rejected out of the pool
   * @return this builder
   */
  public SchedulingQueueBuilder<K, T> hint(String rejector, ClusterEvent event) {
    Checks.nonNull(rejector, "rejector");
    Checks.nonNull(event, "event");
    hints.add(new Registrations.Hint<>(rejector, event, null));
    return this;
  }

  /**
   * Adds a gate, run (after the earlier ones) before an item enters activeQ.
   *
   * @param gate the gate; its name must be unique within this builder
   * @return this builder
   * @throws IllegalArgumentException if a gate of that name exists
   */
  public SchedulingQueueBuilder<K, T> gate(Gate<T> gate) {
    Checks.nonNull(gate, "gate");
    for (Gate<T> g : gates) {
      if (g.name().equals(gate.name())) {
        throw new IllegalArgumentException("duplicate gate name: " + gate.name());
      }
    }
    gates.add(gate);
    return this;
  }

  /**
   * A queue with these settings.
   *
   * @return a new, open queue; later changes to this builder do not affect it
   * @throws IllegalArgumentException if the initial back-off exceeds the maximum
   */
  public SchedulingQueue<K, T> build() {
    if (initialBackoffNanos > maxBackoffNanos) {
      throw new IllegalArgumentException("initialBackoff must not exceed maxBackoff");
    }
    return new DefaultSchedulingQueue<>(this);
  }

  Comparator<QueuedItem<K, T>> activeOrder() {
    Comparator<QueuedItem<K, T>> base;
    if (comparator != null) {
      base = (a, b) -> comparator.compare(a, b);
    } else {
      ToIntFunction<? super T> p = priority;
      base = (a, b) -> {
        int c = Integer.compare(p.applyAsInt(b.item()), p.applyAsInt(a.item()));
        return c != 0 ? c : Long.compare(a.timestamp() - b.timestamp(), 0);
      };
    }
    AtomicBoolean warned = new AtomicBoolean();
    return (a, b) -> {
      int c;
      try {
        c = base.compare(a, b);
      } catch (Throwable t) {
        // Called inside a heap's sift: a throw there would leave the heap half-changed. The
        // two items count as equal, so the queue's own sequence orders them.
        Registrations.rethrowIfFatal(t);
        if (warned.compareAndSet(false, true)) {
          LOG.warn("the scheduling queue's comparator or priority function threw; items it"
              + " cannot compare are ordered by arrival (logged once per queue)", t);
        }
        c = 0;
      }
      return c != 0 ? c : Long.compare(a.sequence(), b.sequence());
    };
  }
}
