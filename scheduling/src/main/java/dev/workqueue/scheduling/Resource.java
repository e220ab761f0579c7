package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * The kind of thing an event is about ("node", "volume", "item"), optionally a child of a
 * broader kind: a registration for a parent resource also matches events about its children
 * (kube-scheduler's {@code Pod} covering {@code AssignedPod} and {@code UnscheduledPod}).
 *
 * @param name the resource name; {@code "*"} is the {@link #WILDCARD}
 * @param parent the broader resource, or null
 */
public record Resource(String name, Resource parent) {
  /** Matches every resource when used in a registration. */
  public static final Resource WILDCARD = new Resource("*", null);

  /** The resource of the queued items themselves; their updates are events about it. */
  public static final Resource ITEM = new Resource("item", null);

  /**
   * A resource, with or without a parent.
   *
   * @param name the resource name, not empty; {@code "*"} without a parent is the wildcard
   * @param parent the broader resource whose registrations also cover this one, or null
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public Resource {
    Checks.nonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
  }

  /**
   * A top-level resource.
   *
   * @param name the resource name, not empty, such as {@code "node"}
   * @return the resource, without a parent
   * @throws NullPointerException if {@code name} is null
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public static Resource of(String name) {
    return new Resource(name, null);
  }

  /**
   * A resource that {@code this} covers: registrations for {@code this} match it too.
   *
   * @param childName the child's name, not empty; it prints as {@code parent/childName}
   * @return the child resource, with {@code this} as its parent
   * @throws NullPointerException if {@code childName} is null
   * @throws IllegalArgumentException if {@code childName} is empty
   */
  public Resource child(String childName) {
    return new Resource(childName, this);
  }

  /**
   * Whether this is the wildcard.
   *
   * @return true if the name is {@code "*"} and there is no parent
   */
  public boolean isWildcard() {
    return name.equals("*") && parent == null;
  }

  /**
   * Whether a registration for {@code this} covers an event about {@code incoming}: this is
   * the wildcard, the same resource, or an ancestor of it.
   *
   * @param incoming the resource of an incoming event
   * @return true if a registration for this resource should see the event
   */
  public boolean covers(Resource incoming) {
    Checks.nonNull(incoming, "incoming");
    if (isWildcard()) {
      return true;
    }
    for (Resource r = incoming; r != null; r = r.parent) {
      if (r.equals(this)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return parent == null ? name : parent + "/" + name;
  }
}
