package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * Where an item is in a scheduling queue, and what that part knows about it: the answer of
 * {@link SchedulingQueue#lookup} (kube-scheduler's {@code GetPod}, which also sees items in
 * flight here). One record per part; switch on {@link #part()}, or test the record type:
 *
 * <pre>{@code
 * queue.lookup("job-7").ifPresent(status -> {
 *   if (status instanceof ItemStatus.BackingOff<String, Job> b) {
 *     log.info("{} waits until {}", b.key(), b.expiry());
 *   } else if (status instanceof ItemStatus.Unschedulable<String, Job> u) {
 *     log.info("{} was rejected by {}", u.key(), u.rejectors().all());
 *   }
 * });
 * }</pre>
 *
 * <p>A status is an immutable snapshot: it tells where the item was when the queue answered.
 *
 * @param <K> the key type
 * @param <T> the item type
 */
public sealed interface ItemStatus<K, T> {

  /** The parts of a scheduling queue an item can be in. */
  enum Part {
    /** activeQ: waiting to be popped. */
    ACTIVE,
    /** backoffQ: failed, waiting out its back-off. */
    BACKOFF,
    /** The pool: rejected, waiting for an event one of its rejectors' hints accepts. */
    UNSCHEDULABLE,
    /** The pool, held by a gate. */
    GATED,
    /** Popped, and neither {@code done} nor {@code requeueFailed} yet. */
    IN_FLIGHT
  }

  /**
   * The item and its counters at the time of the look-up.
   *
   * @return the snapshot, never null
   */
  ItemSnapshot<K, T> state();

  /**
   * The part the item is in.
   *
   * @return the part matching this record's type, never null
   */
  Part part();

  /**
   * The item.
   *
   * @return {@code state().item()}
   */
  default T item() {
    return state().item();
  }

  /**
   * The item's key.
   *
   * @return {@code state().key()}
   */
  default K key() {
    return state().key();
  }

  /**
   * In activeQ.
   *
   * @param state the item and its counters
   * @param <K> the key type
   * @param <T> the item type
   */
  record Active<K, T>(ItemSnapshot<K, T> state) implements ItemStatus<K, T> {
    /**
     * A status, made by the queue.
     *
     * @param state the item and its counters, not null
     * @throws NullPointerException if {@code state} is null
     */
    public Active {
      Checks.nonNull(state, "state");
    }

    @Override
    public Part part() {
      return Part.ACTIVE;
    }
  }

  /**
   * In backoffQ.
   *
   * @param state the item and its counters
   * @param expiry the first reading of the queue's clock at which the back-off is over (with
   *     window alignment, the end of the window its expiry falls in); the 1 s flush at or after
   *     it moves the item to activeQ
   * @param errored whether its last failure was an error (no rejector): such an item is never
   *     popped before {@code expiry}, even with pop-from-backoff
   * @param <K> the key type
   * @param <T> the item type
   */
  record BackingOff<K, T>(ItemSnapshot<K, T> state, long expiry, boolean errored)
      implements ItemStatus<K, T> {
    /**
     * A status, made by the queue.
     *
     * @param state the item and its counters, not null
     * @param expiry when the back-off is over, a clock reading
     * @param errored whether the last failure was an error
     * @throws NullPointerException if {@code state} is null
     */
    public BackingOff {
      Checks.nonNull(state, "state");
    }

    @Override
    public Part part() {
      return Part.BACKOFF;
    }
  }

  /**
   * In the unschedulable pool, rejected.
   *
   * @param state the item and its counters; {@code state().lastRejectors()} are its rejectors
   * @param <K> the key type
   * @param <T> the item type
   */
  record Unschedulable<K, T>(ItemSnapshot<K, T> state) implements ItemStatus<K, T> {
    /**
     * A status, made by the queue.
     *
     * @param state the item and its counters, not null
     * @throws NullPointerException if {@code state} is null
     */
    public Unschedulable {
      Checks.nonNull(state, "state");
    }

    /**
     * What rejected the item: the hints of these rejectors decide which events move it.
     *
     * @return {@code state().lastRejectors()}; empty only for an item the timeout flush or an
     *     event will retry whatever happens
     */
    public Rejectors rejectors() {
      return state.lastRejectors();
    }

    @Override
    public Part part() {
      return Part.UNSCHEDULABLE;
    }
  }

  /**
   * In the unschedulable pool, held by a gate.
   *
   * @param state the item and its counters
   * @param gate the name of the gate that said no, the first to be asked next time
   * @param <K> the key type
   * @param <T> the item type
   */
  record Gated<K, T>(ItemSnapshot<K, T> state, String gate) implements ItemStatus<K, T> {
    /**
     * A status, made by the queue.
     *
     * @param state the item and its counters, not null
     * @param gate the gate's name, not null
     * @throws NullPointerException if an argument is null
     */
    public Gated {
      Checks.nonNull(state, "state");
      Checks.nonNull(gate, "gate");
    }

    @Override
    public Part part() {
      return Part.GATED;
    }
  }

  /**
   * Popped and not yet reported back.
   *
   * @param state the item and its counters; {@code state().attempts()} includes this attempt
   *     and {@code state().lastRejectors()} are those of the failure before it
   * @param attemptId the attempt's id, {@link PoppedItem#id}: what {@code done} takes
   * @param deleted whether the item was deleted during the attempt: its {@code requeueFailed}
   *     will drop it
   * @param <K> the key type
   * @param <T> the item type
   */
  record InFlight<K, T>(ItemSnapshot<K, T> state, long attemptId, boolean deleted)
      implements ItemStatus<K, T> {
    /**
     * A status, made by the queue.
     *
     * @param state the item and its counters, not null
     * @param attemptId the attempt's id
     * @param deleted whether the item was deleted during the attempt
     * @throws NullPointerException if {@code state} is null
     */
    public InFlight {
      Checks.nonNull(state, "state");
    }

    @Override
    public Part part() {
      return Part.IN_FLIGHT;
    }
  }
}
