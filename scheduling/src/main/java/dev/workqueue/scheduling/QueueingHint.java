package dev.workqueue.scheduling;

/** A rejector's answer to "may this event have made the item schedulable?". */
public enum QueueingHint {
  /** Yes, or maybe: move the item out of the pool (at once for a pending rejector). */
  QUEUE,
  /** No: the event cannot help; leave the item where it is. */
  SKIP
}
