package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import java.util.List;
import java.util.function.Predicate;

/**
 * A condition an item must meet before it may enter activeQ (kube-scheduler's PreEnqueue
 * plugins and scheduling gates). While a gate says no the item waits in the pool, marked
 * gated; only the gate's {@link #events} re-check it (and the pool's timeout flush, and an
 * update of the item itself). The gate that failed last is checked first the next time.
 *
 * @param name the gate's name, unique within a queue
 * @param admits true when the item may enter activeQ; called with the main lock held, so fast
 *     and never calling back into the queue; a throwing predicate (an {@code Error} included,
 *     except a {@code VirtualMachineError} other than {@code StackOverflowError}) keeps the
 *     item gated
 * @param events the events that may open the gate
 * @param <T> the item type
 */
public record Gate<T>(String name, Predicate<? super T> admits, List<ClusterEvent> events) {
  /**
   * A gate; {@code events} is copied.
   *
   * @param name the gate's name, not empty and unique within a queue; it also labels the
   *     gated items in the {@code unschedulable_items} metric
   * @param admits true when the item may enter activeQ; fast, and never calling into the queue
   * @param events the events that re-check the items this gate holds; may be empty (then only
   *     wildcard events, an update of the item, {@code activate} or the timeout flush do)
   * @throws NullPointerException if an argument or an event is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public Gate {
    Checks.nonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    Checks.nonNull(admits, "admits");
    Checks.nonNull(events, "events");
    events = List.copyOf(events);
  }

  /**
   * A gate opened by {@code events}.
   *
   * @param name the gate's name, not empty and unique within a queue
   * @param admits true when the item may enter activeQ; fast, and never calling into the queue
   * @param events the events that re-check the items this gate holds
   * @param <T> the item type
   * @return the gate
   * @throws NullPointerException if an argument or an event is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public static <T> Gate<T> of(String name, Predicate<? super T> admits, ClusterEvent... events) {
    Checks.nonNull(events, "events");
    return new Gate<>(name, admits, List.of(events));
  }
}
