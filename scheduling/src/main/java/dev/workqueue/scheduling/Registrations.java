package dev.workqueue.scheduling;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hints and gates of a queue, and the rules that apply them: which events are of
 * interest at all, what a rejected item should do about an event, which gate holds an item.
 * Immutable after build; its methods call user code and are called under the main lock.
 */
final class Registrations<T> {
  private static final Logger log = LoggerFactory.getLogger(SchedulingQueue.class);

  /** A rejector's interest in an event; {@code hint} null means always QUEUE. */
  record Hint<T>(String rejector, ClusterEvent event, QueueingHintFunction<? super T> hint) {}

  private final List<Hint<T>> hints;
  private final List<Gate<T>> gates;
  private final boolean numericActionQuirk;

  Registrations(List<Hint<T>> hints, List<Gate<T>> gates, boolean numericActionQuirk) {
    this.hints = List.copyOf(hints);
    this.gates = List.copyOf(gates);
    this.numericActionQuirk = numericActionQuirk;
  }

  boolean hasGates() {
    return !gates.isEmpty();
  }

  /** Whether any hint or gate is interested in {@code event}; wildcards always are. */
  boolean isOfInterest(ClusterEvent event) {
    if (event.isWildcard()) {
      return true;
    }
    for (Hint<T> h : hints) {
      if (h.event().matches(event, numericActionQuirk)) {
        return true;
      }
    }
    for (Gate<T> g : gates) {
      if (matchesAny(g.events(), event)) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a rejected item should do about {@code event}. No rejector → after back-off (an
   * error retries whatever happened); a wildcard (such as the {@link
   * ClusterEvent#FORCE_ACTIVATE} an {@code activate} logs for an item in flight) → after
   * back-off without asking the hints, as kube-scheduler does; otherwise the hints of the item's
   * rejectors registered for a matching event: a pending rejector's QUEUE → at once, an
   * unschedulable rejector's QUEUE → after back-off, none → skip.
   *
   * <p>The hints are asked in registration order and the asking stops as soon as the answer
   * is {@linkplain #isSettled settled} (kube-scheduler's {@code isPodWorthRequeuing}): at the
   * first QUEUE when the item has no pending rejector, else at the first pending rejector's
   * QUEUE. A hint with side effects or a cost is called no more often than that.
   */
  RequeueStrategy evaluate(QueuedItemInfo<?, T> info, ClusterEvent event, Object oldObj,
      Object newObj) {
    if (!info.hasRejectors() || event.isWildcard()) {
      return RequeueStrategy.AFTER_BACKOFF;
    }
    RequeueStrategy strategy = RequeueStrategy.SKIP;
    for (Hint<T> h : hints) {
      if (!info.isRejectedBy(h.rejector()) || !h.event().matches(event, numericActionQuirk)) {
        continue;
      }
      if (call(h, info.item, oldObj, newObj) == QueueingHint.SKIP) {
        continue;
      }
      strategy = info.pendingRejectors.contains(h.rejector())
          ? RequeueStrategy.IMMEDIATELY : RequeueStrategy.AFTER_BACKOFF;
      if (isSettled(info, strategy)) {
        return strategy;
      }
    }
    return strategy;
  }

  /**
   * Whether no further hint or event can make {@code strategy} stronger for {@code info}: it
   * is IMMEDIATELY, or AFTER_BACKOFF for an item without a pending rejector (only a pending
   * rejector's QUEUE can make it IMMEDIATELY).
   */
  static boolean isSettled(QueuedItemInfo<?, ?> info, RequeueStrategy strategy) {
    return strategy == RequeueStrategy.IMMEDIATELY
        || (strategy == RequeueStrategy.AFTER_BACKOFF && info.pendingRejectors.isEmpty());
  }

  private QueueingHint call(Hint<T> h, T item, Object oldObj, Object newObj) {
    if (h.hint() == null) {
      return QueueingHint.QUEUE;
    }
    try {
      QueueingHint answer = h.hint().hint(item, oldObj, newObj);
      return answer == null ? QueueingHint.QUEUE : answer;
    } catch (Throwable t) {
      rethrowIfFatal(t);
      log.warn("queueing hint of {} for {} threw; counted as QUEUE", h.rejector(), h.event(), t);
      return QueueingHint.QUEUE;
    }
  }

  /**
   * The registered events that can move {@code info} out of the pool: its gate's events
   * while gated, else the events its rejectors' hints are registered for. Used by the
   * pool's event index.
   */
  Set<ClusterEvent> eventsOfInterestTo(QueuedItemInfo<?, T> info) {
    Set<ClusterEvent> events = new LinkedHashSet<>();
    if (info.gated) {
      for (Gate<T> g : gates) {
        if (info.lastFailedGate == null || g.name().equals(info.lastFailedGate)) {
          events.addAll(g.events());
        }
      }
    } else {
      for (Hint<T> h : hints) {
        if (info.isRejectedBy(h.rejector())) {
          events.add(h.event());
        }
      }
    }
    return events;
  }

  /** The distinct registered events (hints' and gates') that match {@code incoming}. */
  Set<ClusterEvent> registeredMatching(ClusterEvent incoming) {
    Set<ClusterEvent> events = new LinkedHashSet<>();
    for (Hint<T> h : hints) {
      if (h.event().matches(incoming, numericActionQuirk)) {
        events.add(h.event());
      }
    }
    for (Gate<T> g : gates) {
      for (ClusterEvent e : g.events()) {
        if (e.matches(incoming, numericActionQuirk)) {
          events.add(e);
        }
      }
    }
    return events;
  }

  /** Whether {@code event} may open the gate that holds {@code info}. */
  boolean mayOpenGate(QueuedItemInfo<?, T> info, ClusterEvent event) {
    if (event.isWildcard() || info.lastFailedGate == null) {
      return true;
    }
    for (Gate<T> g : gates) {
      if (g.name().equals(info.lastFailedGate)) {
        return matchesAny(g.events(), event);
      }
    }
    return true;
  }

  /**
   * The name of the first gate that holds {@code info}, or null if every gate admits it. The
   * gate that failed last time is asked first.
   */
  String firstClosedGate(QueuedItemInfo<?, T> info) {
    if (gates.isEmpty()) {
      return null;
    }
    List<Gate<T>> order = new ArrayList<>(gates.size());
    for (Gate<T> g : gates) {
      if (g.name().equals(info.lastFailedGate)) {
        order.add(0, g);
      } else {
        order.add(g);
      }
    }
    for (Gate<T> g : order) {
      if (!admits(g, info.item)) {
        return g.name();
      }
    }
    return null;
  }

  private static <T> boolean admits(Gate<T> g, T item) {
    try {
      return g.admits().test(item);
    } catch (Throwable t) {
      rethrowIfFatal(t);
      log.warn("gate {} threw; the item stays gated", g.name(), t);
      return false;
    }
  }

  /**
   * The caller's code that threw (a gate, a hint, the order) is treated as failed, whatever it
   * threw (an {@code AssertionError} from the caller's {@code assert} and a {@link
   * StackOverflowError}, whose stack is unwound by now, included), so no item is lost
   * mid-move; only another {@link VirtualMachineError} propagates: the JVM may be broken.
   */
  static void rethrowIfFatal(Throwable t) {
    if (t instanceof VirtualMachineError vme && !(t instanceof StackOverflowError)) {
      throw vme;
    }
  }

  private boolean matchesAny(List<ClusterEvent> registered, ClusterEvent event) {
    for (ClusterEvent r : registered) {
      if (r.matches(event, numericActionQuirk)) {
        return true;
      }
    }
    return false;
  }
}
