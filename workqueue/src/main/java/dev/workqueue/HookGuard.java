package dev.workqueue;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a queue's calls into code it does not own end: metrics hooks, the clock's {@code
 * schedule} (and so a caller's {@code scheduler(...)} executor). The queue completes each state
 * change before it calls such code, so a throw can only cost the hook its own effect: it is
 * logged (at warn the first time per queue, at debug after), counted, and swallowed. A {@link
 * VirtualMachineError} is rethrown: the JVM may be broken. Guarded by the queue's lock.
 */
final class HookGuard {
  private static final Logger log = LoggerFactory.getLogger(WorkQueue.class);

  private final String queue;
  private int failures;

  HookGuard(String name) {
    this.queue = name == null ? "(unnamed)" : name;
  }

  /** Records that the hook {@code what} threw {@code t}. */
  void failed(String what, Throwable t) {
    if (t instanceof VirtualMachineError vme) {
      throw vme;
    }
    if (failures++ == 0) {
      log.warn("queue {}: {} threw; the queue's state is complete and unaffected (logged at"
          + " warn once per queue, at debug after)", queue, what, t);
    } else if (log.isDebugEnabled()) {
      log.debug("queue {}: {} threw (failure {})", queue, what, failures, t);
    }
  }
}
