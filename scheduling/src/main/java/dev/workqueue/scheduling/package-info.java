/**
 * kube-scheduler's scheduling queue for any item type: {@link
 * dev.workqueue.scheduling.SchedulingQueue}, built with {@link
 * dev.workqueue.scheduling.SchedulingQueueBuilder}.
 *
 * <p>Start with {@code SchedulingQueue.builder(Item::key)}; the defaults behave like the newest
 * kube-scheduler. The essay below explains how an item moves between the queue's parts.
 */
package dev.workqueue.scheduling;

/*
 * How does the scheduling queue move items, and why?
 * ===================================================
 *
 * A scheduler takes one item at a time and tries to place it. Most attempts succeed. Those
 * that fail fall in two kinds, and the queue treats them differently:
 *
 *   - the attempt *errored* (a timeout talking to a store, a bug in a plugin): nothing about
 *     the world says it will fail again, so retry it, but not in a tight loop;
 *   - something *rejected* it ("no node has 64 GB free"): retrying is pointless until the
 *     world changes in a way the rejector cares about (a node is added, a job finishes).
 *
 * Hence three parts:
 *
 *                    add (gates open)                 pop
 *     ──────────────────────────────────► activeQ ───────────► in flight
 *       add (gate closed)                   ▲  ▲                 │
 *     ────────────┐      gate event opens ──┘  │ back-off over   │ requeueFailed
 *                 ▼      / hint: at once       │ (1 s flush)     │
 *         unschedulable pool ─────────────► backoffQ ◄───────────┤ no rejector, or
 *           ▲  (map, arrival order)  hint:  (heap by expiry)     │ a hint accepted an
 *           │                        after back-off              │ event logged during
 *           └────────────────────────────────────────────────────┘ the attempt
 *                          rejected, and no logged event helps
 *
 *   activeQ   a heap: the head is tried next (higher priority, then earlier timestamp);
 *   backoffQ  two heaps by back-off expiry: items rejected, and items that errored (the
 *             latter never leave early);
 *   pool      a map of items waiting for an event, plus gated items waiting for a gate.
 *
 * The invariant: a key is in exactly one of activeQ, backoffQ, the pool, in flight, or
 * nowhere. Every move removes the item from one part before adding it to the next, under
 * the locks of both, so no reader ever sees it twice, and every gauge is set from the
 * size of the part it measures right after the change.
 *
 * Deciding where a failed item goes: the in-flight log
 * ---------------------------------------------------
 * The hard case is an event that arrives *while* the item is being tried. Say job J is
 * popped at t = 0 (cycle 7). At t = 10 ms a node is added. At t = 20 ms the attempt ends:
 * "rejected by fit: not enough memory" - but the attempt looked at the world before the node
 * came. Parking J in the pool would strand it: the node-added event has already been
 * delivered and will not come again. So every event of interest that arrives while some
 * attempt is in flight is appended to a log; each attempt remembers the log position at its
 * pop; on failure the queue replays exactly the events after that position through the
 * hints of J's rejectors:
 *
 *   - no rejector at all (an error)               -> after back-off
 *   - a pending rejector's hint says QUEUE        -> activeQ at once
 *   - an unschedulable rejector's hint says QUEUE -> after back-off
 *   - nothing says QUEUE                          -> the pool
 *
 * "After back-off" goes to backoffQ if the item is still backing off, else to activeQ.
 * Events before the pop are not replayed: the attempt already saw their effect. Log entries
 * are dropped as soon as the oldest attempt in flight no longer needs them, and the log is
 * bounded: when it is full the oldest entry goes, and an attempt that missed it is treated
 * as "something may have helped" (after back-off) instead of being parked on a guess.
 *
 * Kubernetes 1.16 answered the same question with two counters instead of a log: every pop
 * increments schedulingCycle, every move request (event) sets moveRequestCycle to the
 * current schedulingCycle, and a failed pod whose cycle is <= moveRequestCycle goes to
 * backoffQ instead of the pool. That is one bit of information ("some event happened since
 * you were popped"), so any event - relevant or not - rescued every in-flight pod. The log
 * keeps the events themselves, so only a relevant event does.
 *
 * Back-off, with numbers
 * ----------------------
 * count = consecutive errors if any, else rejections; duration = 1 s * 2^(count-1), capped
 * at 10 s: 1, 2, 4, 8, 10, 10 s. The expiry is the item's timestamp (its last failure) plus
 * the duration. With pop-from-backoff on, expiries are truncated to 1 s windows and a pop
 * that finds activeQ empty takes backoffQ's head early; an item whose window is the current
 * window still counts as backing off. A flush runs on whole seconds and moves every item
 * whose back-off is over; it is scheduled on the injected clock for the first whole second
 * at which the earliest head is due, so an idle queue has no timer at all.
 *
 * Example (defaults): J is rejected at t = 3.0 s for the 2nd time: duration 2 s, expiry
 * 5.0 s, window [5 s, 6 s). At t = 5.0 s it is still in its window, at t = 6.0 s the flush
 * moves it to activeQ. Had activeQ been empty at t = 4.2 s, a pop would have taken J then.
 *
 * The pool's safety net: every 30 s a flush moves every pooled item that stayed longer than
 * 5 min (strictly) since its last failure or last flush, after back-off and without asking
 * the hints, so an item whose event never comes (or was lost) is retried eventually.
 *
 * Gates run before an item may enter activeQ (on add, on every move to activeQ); a closed
 * gate parks the item in the pool marked gated, and only that gate's events, an update of
 * the item, activate() or the timeout flush look at it again. The gate that failed last
 * runs first next time, since it is the one most likely to fail again. With pop-from-backoff
 * a pop may take backoffQ's head, so backoffQ is a way into "about to be popped" too: the
 * gates run on the way into backoffQ (kube's moveToBackoffQ) and not again on the way from
 * backoffQ to activeQ. Without pop-from-backoff they run on that second move instead. Either
 * way, no item reaches pop without passing the gates.
 *
 * Hints are asked in registration order and the asking stops once the answer is settled:
 * at a pending rejector's QUEUE (at once), or at the first QUEUE of an item without a
 * pending rejector (after back-off; nothing could make it stronger). The replay of the
 * events logged during an attempt stops at the same point (kube's isPodWorthRequeuing and
 * determineSchedulingHintForInFlightPod).
 */
