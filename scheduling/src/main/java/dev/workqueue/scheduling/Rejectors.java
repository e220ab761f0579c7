package dev.workqueue.scheduling;

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

  /** @throws NullPointerException if a set or a name is null */
  public Rejectors {
    unschedulable = copy(unschedulable, "unschedulable");
    pending = copy(pending, "pending");
  }

  /** No rejector: the attempt failed with an error. */
  public static Rejectors none() {
    return NONE;
  }

  /** Only unschedulable rejectors. */
  public static Rejectors unschedulable(String... names) {
    Objects.requireNonNull(names, "names must not be null");
    return new Rejectors(Set.of(names), Set.of());
  }

  /** Only pending rejectors. */
  public static Rejectors pending(String... names) {
    Objects.requireNonNull(names, "names must not be null");
    return new Rejectors(Set.of(), Set.of(names));
  }

  /** Whether there is no rejector (an error). */
  public boolean isEmpty() {
    return unschedulable.isEmpty() && pending.isEmpty();
  }

  /** Every rejector, unschedulable first, in a stable order. */
  public Set<String> all() {
    Set<String> all = new LinkedHashSet<>(unschedulable);
    all.addAll(pending);
    return all;
  }

  private static Set<String> copy(Set<String> names, String what) {
    Objects.requireNonNull(names, what + " must not be null");
    Set<String> copy = new LinkedHashSet<>();
    for (String n : names) {
      copy.add(Objects.requireNonNull(n, what + " must not contain null"));
    }
    return java.util.Collections.unmodifiableSet(copy);
  }
}
