package dev.workqueue;

/**
 * How an add meets what the queue already holds for its item: chosen once by the builder.
 *
 * <ul>
 *   <li>{@link #CLIENT_GO}: a delayed add waits in the waiting room whatever the item's state,
 *       and when due it is added like any other add (merged if the item is dirty then); an add
 *       without delay leaves a waiting add be. An add of a dirty item merges without the lock.
 *   <li>{@link #CLIENT_GO_SUPERSEDE} (the delaying queue's {@code addSupersedesDelayed}): as
 *       client-go, but an add without delay also takes a waiting add of the item out (the item is
 *       ready now; a later due add would only make a second round). As a dirty item may wait,
 *       an add of it takes the lock to look at the waiting room.
 *   <li>{@link #CONTROLLER_RUNTIME} (the priority queue): an add without delay takes a waiting
 *       add's place and keeps the higher priority of the two; a delayed add of a dirty item only
 *       raises its priority (a ready item never goes back to waiting); an item keeps the highest
 *       priority it was added with. A dirty item never waits, so an add of it merges without the
 *       lock.
 * </ul>
 */
enum AddRules {
  CLIENT_GO(false, false),
  CLIENT_GO_SUPERSEDE(true, false),
  CONTROLLER_RUNTIME(true, true);

  private final boolean supersedes;
  private final boolean dirtyItemsNeverWait;

  AddRules(boolean supersedes, boolean dirtyItemsNeverWait) {
    this.supersedes = supersedes;
    this.dirtyItemsNeverWait = dirtyItemsNeverWait;
  }

  static AddRules of(boolean priority, boolean addSupersedesDelayed) {
    return priority ? CONTROLLER_RUNTIME : addSupersedesDelayed ? CLIENT_GO_SUPERSEDE : CLIENT_GO;
  }

  /**
   * Whether an add of a dirty item may merge into its pending round without the lock: unless an
   * add must also take a waiting add of the item out and a dirty item may be waiting.
   */
  boolean mergesWithoutLock() {
    return !supersedes || dirtyItemsNeverWait;
  }

  /** Whether an add without delay takes a waiting add of its item out. */
  boolean supersedesWaitingAdd() {
    return supersedes;
  }

  /**
   * Under the lock: a delayed add of an item whose live entry is {@code live} (or null). True if
   * the rules absorb it into that entry (controller-runtime's: a dirty item's priority rises,
   * unless the add is a reschedule, which leaves a ready item as it is); false if it goes on to
   * the waiting room.
   */
  <T> boolean absorbsDelayedAdd(Entry<T> live) {
    return dirtyItemsNeverWait && live != null && live.isDirty();
  }

  /** Whether a delayed add needs the item's live entry ({@link #absorbsDelayedAdd}). */
  boolean readsEntryOnDelayedAdd() {
    return dirtyItemsNeverWait;
  }
}
