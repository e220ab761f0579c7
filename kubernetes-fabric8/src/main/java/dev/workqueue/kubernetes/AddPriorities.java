package dev.workqueue.kubernetes;

import dev.workqueue.PriorityWorkQueue.AddOptions;
import dev.workqueue.controller.Controller;
import dev.workqueue.controller.ControllerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two priorities a {@link KubernetesController} queues keys at: real changes at the event
 * priority; keys queued without a change (the replay of the caches on a gain of the Lease, the
 * periodic resync, the initial list, a shard's gained keys) at the lower replay priority, so that
 * a change made during a replay of many objects is not reconciled behind all of them, as
 * controller-runtime's handlers do with its {@code LowPriority}. The priority queue's aging
 * bounds how long a replayed key waits behind the changes (controller-runtime#3496).
 *
 * <p>On a queue without priorities (the user's own, or {@code priorityQueue(false)}) every key
 * goes in at priority 0: the core controller refuses any other there, which is learnt from the
 * first refusal (nothing is added by a refused add) and logged once.
 */
final class AddPriorities {
  private static final Logger log = LoggerFactory.getLogger(AddPriorities.class);

  private final Controller<ObjectKey> core;
  private final AddOptions event;
  private final AddOptions replay;
  private volatile boolean noPriorities;

  AddPriorities(Controller<ObjectKey> core, int eventPriority, int replayPriority) {
    this.core = core;
    this.event = AddOptions.ofPriority(eventPriority);
    this.replay = AddOptions.ofPriority(replayPriority);
  }

  /**
   * The core controller of {@code options}, on a priority queue unless the options chose
   * otherwise: {@code priorityQueue(true)} is set before them, so {@code priorityQueue(false)}
   * there wins; a queue of the user's ({@code queue(...)}, which the core refuses beside {@code
   * priorityQueue(true)}) wins too.
   */
  static Controller<ObjectKey> build(ControllerBuilder<ObjectKey> withOptions) {
    try {
      return withOptions.build();
    } catch (IllegalStateException e) {
      // The default of priorityQueue(true) and the user's queue(...) clash: theirs wins. Any
      // other mistake of the options fails again, with its own message.
      return withOptions.priorityQueue(false).build();
    }
  }

  /**
   * Queues {@code key}: of a real change, or, if {@code noChange}, of a replay, resync, initial
   * list or shard gain.
   */
  void add(ObjectKey key, boolean noChange) {
    add(key, noChange ? replay : event);
  }

  private void add(ObjectKey key, AddOptions options) {
    if (options.priority() == 0 || noPriorities) {
      core.add(key);
      return;
    }
    try {
      core.add(key, options);
    } catch (IllegalArgumentException e) { // a queue without priorities: nothing was added
      if (!noPriorities) {
        noPriorities = true;
        log.info("controller {}: its queue has no priorities; every key is queued at priority"
            + " 0, replays too", core.name());
      }
      core.add(key);
    }
  }
}
