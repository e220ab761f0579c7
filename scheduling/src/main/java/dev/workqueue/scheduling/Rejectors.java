package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;

/**
 * Why an attempt failed: the names of whatever said no. <em>Unschedulable</em> rejectors need
 * a change in the world; <em>pending</em> rejectors are waiting for something already under
 * way, so an event they accept sends the item straight to activeQ. No rejector at all means
 * the attempt failed with an error: the item backs off and retries whatever happens.
 *
 * @param unschedulable rejectors that need the world to change
 * @param pending rejectors waiting for something in progress
 */
public record Rejectors(Set<String> unschedulable, Set<String> pending) {
  private static final Rejectors NONE = new Rejectors(Set.of(), Set.of());

  /**
   * Rejectors of both kinds; the sets are copied, keeping their iteration order.
   *
   * @param unschedulable the names of the rejectors that need the world to change; their
   *     hints' QUEUE sends the item to backoffQ (or to activeQ once its back-off is over)
   * @param pending the names of the rejectors waiting for something in progress; their hints'
   *     QUEUE sends the item to activeQ at once
   * @throws NullPointerException if a set or a name is null
   */
  public Rejectors {
    unschedulable = copy(unschedulable, "unschedulable");
    pending = copy(pending, "pending");
  }

  /**
   * No rejector: the attempt failed with an error.
   *
   * @return the shared empty instance; the item retries after back-off, counted by
   *     {@link QueuedItem#consecutiveErrors}
   */
  public static Rejectors none() {
    return NONE;
  }

  /**
   * Only unschedulable rejectors.
   *
   * @param names the rejectors' names, as registered with the builder's {@code hint}; no
   *     null, no name twice
   * @return rejectors with these unschedulable names and no pending one
   */
  public static Rejectors unschedulable(String... names) {
    Checks.nonNull(names, "names");
    return new Rejectors(Set.of(names), Set.of());
  }

  /**
   * Only pending rejectors.
   *
   * @param names the rejectors' names, as registered with the builder's {@code hint}; no
   *     null, no name twice
   * @return rejectors with these pending names and no unschedulable one
   */
  public static Rejectors pending(String... names) {
    Checks.nonNull(names, "names");
    return new Rejectors(Set.of(), Set.of(names));
  }

  /**
   * Whether there is no rejector (an error).
   *
   * @return true if both sets are empty
   */
  public boolean isEmpty() {
    return unschedulable.isEmpty() && pending.isEmpty();
  }

  /**
   * Every rejector, unschedulable first, in a stable order.
   *
   * @return a new set of the names of both kinds; a name in both sets appears once
   */
  public Set<String> all() {
    Set<String> all = new LinkedHashSet<>(unschedulable);
    all.addAll(pending);
    return all;
  }

  private static Set<String> copy(Set<String> names, String what) {
    Checks.nonNull(names, what);
    Set<String> copy = new LinkedHashSet<>();
    for (String n : names) {
      copy.add(Objects.requireNonNull(n, what + " must not contain null"));
    }
    return java.util.Collections.unmodifiableSet(copy);
  }
}
