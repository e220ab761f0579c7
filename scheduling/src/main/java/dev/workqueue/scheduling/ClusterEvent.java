package dev.workqueue.scheduling;

import dev.workqueue.internal.Checks;

/**
 * Something that changed in the world and may let waiting items be scheduled: a resource, a
 * bitmask of actions and an optional label (for logs and the {@code event} label of the
 * incoming-items metric). Used both for incoming events ({@link SchedulingQueue#onEvent}) and
 * for registrations (which events a rejector's hint or a gate wants to see).
 *
 * <p>Actions are bits; the toolkit defines {@link #ADD}, {@link #DELETE} and {@link #UPDATE}
 * and leaves bits 3 to 30 to the user for finer updates (kube-scheduler splits node updates
 * into label, taint, allocatable...). {@link #ALL} has every bit of 0 to 30 set.
 *
 * <p>A registration {@code r} matches an incoming event {@code e} if {@code r} is the
 * {@linkplain #isWildcard wildcard}, or {@code r.resource} {@linkplain Resource#covers covers}
 * {@code e.resource} and their action masks intersect. With kube-compatible action matching
 * (a builder setting, on by default) the incoming mask must also be numerically at most the
 * registered one, a quirk kube-scheduler really has: an incoming {@code ADD|UPDATE} does not
 * match a registration for {@code ADD} alone.
 *
 * @param resource what the event is about
 * @param actions a non-zero bitmask of actions
 * @param label a short name, never null (derived from resource and actions if not given)
 */
public record ClusterEvent(Resource resource, int actions, String label) {
  /** The action bit of a creation (bit 0). */
  public static final int ADD = 1;
  /** The action bit of a removal (bit 1). */
  public static final int DELETE = 1 << 1;
  /** The action bit of an update (bit 2); bits 3 to 30 are free for finer kinds of update. */
  public static final int UPDATE = 1 << 2;
  /** Every action bit (0 to 30): the largest positive mask. */
  public static final int ALL = Integer.MAX_VALUE;

  /** The wildcard: matches every event when registered; every registration sees it. */
  public static final ClusterEvent WILDCARD = new ClusterEvent(Resource.WILDCARD, ALL, "*");

  /** The flush of items that stayed in the pool too long: a wildcard event. */
  public static final ClusterEvent UNSCHEDULABLE_TIMEOUT =
      new ClusterEvent(Resource.WILDCARD, ALL, "UnschedulableTimeout");

  /** The label of moves from the back-off heaps to activeQ when the back-off is over. */
  public static final String BACKOFF_COMPLETE = "BackoffComplete";

  /**
   * The label of the items a {@link SchedulingQueue#pop} takes from backoffQ because activeQ
   * is empty (pop-from-backoff): counted as entering activeQ, as kube-scheduler counts them.
   */
  public static final String POP_FROM_BACKOFF = "PopFromBackoffQ";

  /**
   * The event of {@link SchedulingQueue#activate}: its moves to activeQ carry this label, and
   * an item activated while in flight finds it logged at its {@code requeueFailed}, where, as
   * every wildcard, it sends the item back after back-off without asking the hints.
   */
  public static final ClusterEvent FORCE_ACTIVATE =
      new ClusterEvent(Resource.WILDCARD, ALL, "ForceActivate");

  /** The label of items entering the queue by {@link SchedulingQueue#add}. */
  public static final String ITEM_ADD = "ItemAdd";

  /** The default event logged by {@link SchedulingQueue#update}. */
  public static final ClusterEvent ITEM_UPDATE =
      new ClusterEvent(Resource.ITEM, UPDATE, "ItemUpdate");

  /**
   * An event or registration with an explicit label.
   *
   * @param resource what the event is about; {@link Resource#WILDCARD} for every resource
   * @param actions a bitmask of {@link #ADD}, {@link #DELETE}, {@link #UPDATE} and user bits 3
   *     to 30, positive; {@link #ALL} for every action
   * @param label the name in logs and in the {@code event} label of the incoming-items metric
   * @throws NullPointerException if {@code resource} or {@code label} is null
   * @throws IllegalArgumentException if {@code actions} has no bit of 0 to 30 set
   */
  public ClusterEvent {
    Checks.nonNull(resource, "resource");
    Checks.nonNull(label, "label");
    if (actions <= 0) {
      throw new IllegalArgumentException("actions must be a non-zero mask of bits 0 to 30, was "
          + actions);
    }
  }

  /**
   * An event labelled {@code resource/actions}, such as {@code node/Add} or
   * {@code node/Add|Update}; user bits appear in hex ({@code node/Update|0x8}).
   *
   * @param resource what the event is about
   * @param actions a positive bitmask of actions, as in the canonical constructor
   * @return the event, with the derived label
   * @throws NullPointerException if {@code resource} is null
   * @throws IllegalArgumentException if {@code actions} has no bit of 0 to 30 set
   */
  public static ClusterEvent of(Resource resource, int actions) {
    Checks.nonNull(resource, "resource");
    return new ClusterEvent(resource, actions, resource + "/" + actionsToString(actions));
  }

  /**
   * Whether this is a wildcard: wildcard resource and every action.
   *
   * @return true for {@link #WILDCARD}, {@link #UNSCHEDULABLE_TIMEOUT}, {@link #FORCE_ACTIVATE}
   *     and any other event of {@link Resource#WILDCARD} with {@link #ALL}, whatever its label
   */
  public boolean isWildcard() {
    return resource.isWildcard() && actions == ALL;
  }

  /**
   * Whether this registration matches {@code incoming}; see the class comment.
   *
   * @param incoming the event that happened
   * @param numericActionQuirk also require {@code incoming.actions <= this.actions}, as
   *     kube-scheduler does
   * @return true if this is a wildcard, or covers the incoming resource with intersecting
   *     actions (and, with the quirk, a numerically smaller or equal incoming mask)
   */
  public boolean matches(ClusterEvent incoming, boolean numericActionQuirk) {
    Checks.nonNull(incoming, "incoming");
    if (isWildcard()) {
      return true;
    }
    return resource.covers(incoming.resource)
        && (actions & incoming.actions) != 0
        && (!numericActionQuirk || incoming.actions <= actions);
  }

  private static String actionsToString(int actions) {
    if (actions == ALL) {
      return "All";
    }
    StringBuilder sb = new StringBuilder();
    append(sb, actions, ADD, "Add");
    append(sb, actions, DELETE, "Delete");
    append(sb, actions, UPDATE, "Update");
    int rest = actions & ~(ADD | DELETE | UPDATE);
    if (rest != 0) {
      sb.append(sb.length() == 0 ? "" : "|").append("0x").append(Integer.toHexString(rest));
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, int actions, int bit, String name) {
    if ((actions & bit) != 0) {
      sb.append(sb.length() == 0 ? "" : "|").append(name);
    }
  }
}
