package dev.workqueue.scheduling;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * kube-scheduler's scheduling queue for any item: activeQ (what to try next), backoffQ (what
 * failed and must wait) and the unschedulable pool (what waits for the world to change). See
 * the package documentation for how items move between them.
 *
 * <pre>{@code
 * SchedulingQueue<String, Job> queue = SchedulingQueue.builder(Job::id)
 *     .priority(Job::priority)
 *     .hint("capacity", ClusterEvent.of(NODE, ClusterEvent.ADD), (job, o, n) -> QueueingHint.QUEUE)
 *     .build();
 * queue.add(job);
 * while (true) {
 *   Optional<PoppedItem<String, Job>> next = queue.pop();   // blocks; empty once closed
 *   if (next.isEmpty()) return;
 *   PoppedItem<String, Job> p = next.get();
 *   Rejectors why = tryToPlace(p.item());
 *   if (why == null) queue.done(p.id()); else queue.requeueFailed(p, why);
 * }
 * }</pre>
 *
 * <p>Every {@code pop} must be followed by exactly one of {@link #done} (success) or
 * {@link #requeueFailed} (failure, which ends the attempt itself). Thread-safe. Items with
 * equal keys are the same item; null arguments fail with a {@link NullPointerException} naming
 * them. After {@link #close}, {@code pop} returns empty and every other change is ignored.
 *
 * @param <K> the key type, compared with {@code equals}/{@code hashCode}
 * @param <T> the item type
 */
public interface SchedulingQueue<K, T> {

  /**
   * A builder with the kube-scheduler preset (see {@link SchedulingQueueBuilder}).
   *
   * @param keyFunction gives an item's key: items with equal keys are one item; it must never
   *     return null and must give every version of an item the same key
   * @param <K> the key type
   * @param <T> the item type
   * @return a new builder; each of its {@code build} calls makes an independent queue
   */
  static <K, T> SchedulingQueueBuilder<K, T> builder(Function<? super T, ? extends K> keyFunction) {
    return new SchedulingQueueBuilder<>(keyFunction);
  }

  /**
   * Adds a new item: through the gates to activeQ (waking one {@code pop}), or to the pool
   * marked gated. An item whose key the queue already knows is {@linkplain #update updated}
   * instead.
   *
   * @param item the new item; its key is taken with the builder's key function
   */
  void add(T item);

  /**
   * Takes the head of activeQ, blocking while activeQ is empty. With pop-from-backoff on, an
   * empty activeQ hands out the head of backoffQ instead, even before its back-off is over
   * (never an item whose last failure was an error; counted in
   * {@code queue_incoming_items_total{queue=active, event=PopFromBackoffQ}}). Counts an
   * attempt and a scheduling cycle and records the item as in flight. Does not take the main
   * lock.
   *
   * @return the item and this attempt's id; empty once the queue is closed (also for a
   *     {@code pop} blocked at the time)
   * @throws InterruptedException if interrupted while waiting (nothing is taken)
   */
  Optional<PoppedItem<K, T>> pop() throws InterruptedException;

  /**
   * Reports that the attempt {@code popped} failed (kube: {@code AddUnschedulableIfNotPresent})
   * and ends it. Counts the failure, refreshes the timestamp, then judges the events logged
   * during the attempt: no rejector → after back-off; else the hints of the rejectors: none
   * says QUEUE → the pool; an unschedulable rejector says QUEUE → after back-off; a pending
   * rejector says QUEUE → activeQ at once. "After back-off" means backoffQ while backing
   * off, else activeQ; either way through the gates when pop-from-backoff is on (a closed
   * gate parks the item in the pool, gated). The replay stops at the first event that settles
   * the answer. An item deleted during the attempt is dropped.
   *
   * @param popped the handle {@link #pop} returned for this attempt
   * @param rejectors what said no ({@link Rejectors#none()} for an error); decides the
   *     back-off count and which hints may move the item out of the pool later
   * @throws IllegalStateException if the attempt already ended, or the item is queued
   */
  void requeueFailed(PoppedItem<K, T> popped, Rejectors rejectors);

  /**
   * Tells the queue that {@code event} happened (kube: {@code MoveAllToActiveOrBackoffQueue}).
   * If no hint or gate is interested, returns at once (nothing is logged). Otherwise every
   * pooled item that passes {@code preCheck} is judged: gated items only by their gate's
   * events (then the gates run again), others by the hints of their rejectors; they move to
   * backoffQ, activeQ or stay. Finally the event is logged for the attempts in flight.
   *
   * @param event what happened; matched against the events registered by hints and gates
   * @param oldObj the object before the change, may be null
   * @param newObj the object after the change, may be null
   * @param preCheck only pooled items it accepts are considered
   */
  void onEvent(ClusterEvent event, Object oldObj, Object newObj, Predicate<? super T> preCheck);

  /**
   * {@link #onEvent(ClusterEvent, Object, Object, Predicate)} for every pooled item.
   *
   * @param event what happened; matched against the events registered by hints and gates
   * @param oldObj the object before the change, or null (an add); passed to the hints
   * @param newObj the object after the change, or null (a delete); passed to the hints
   */
  void onEvent(ClusterEvent event, Object oldObj, Object newObj);

  /**
   * Replaces an item by a new version with the same key. In activeQ or backoffQ: replaced in
   * place (timestamp kept; re-sorted only if the comparator looks at the item). In flight:
   * the update events are logged for the attempt. In the pool: replaced, then judged by the
   * hints against the update events (gated: the gates run again). Unknown: {@link #add}.
   *
   * @param oldItem the previous version, handed to the builder's update events function and
   *     to the hints as the old object
   * @param newItem the new version, which replaces the one the queue holds
   * @throws IllegalArgumentException if the keys differ
   */
  void update(T oldItem, T newItem);

  /**
   * Removes the item with the key of {@code item} from wherever it waits; an item in flight
   * is dropped at its {@link #requeueFailed}.
   *
   * @param item the item, or any version of it: only its key is used
   * @return whether the queue knew the item
   */
  boolean delete(T item);

  /**
   * Moves the given items from backoffQ or the pool to activeQ (through the gates), whatever
   * the hints say. An item in flight remembers it: its {@link #requeueFailed} neither pools it
   * nor asks the hints, and sends it to backoffQ if its back-off has not ended, else to activeQ
   * (kube-scheduler's {@code ForceActivate} for a pod in flight). Unknown items are ignored.
   *
   * @param items the items to activate, or any versions of them: only their keys are used;
   *     none may be null
   */
  void activate(Collection<? extends T> items);

  /**
   * Ends the attempt with this id (success). An id that is not in flight is ignored: a
   * second {@code done}, or one after {@link #requeueFailed}, changes nothing.
   *
   * @param id the attempt's id, {@link PoppedItem#id} of the item {@link #pop} returned
   * @return whether an attempt ended
   */
  boolean done(long id);

  /**
   * A snapshot of the waiting items with the summary
   * {@code activeQ:N; backoffQ:N; unschedulable:N}, for humans; programs ask
   * {@link #lookup}, {@link #counts}, {@link #inFlight} or {@link #activeItems}.
   *
   * @return the items of activeQ, backoffQ and the pool, in that order; items in flight are
   *     not included
   */
  Pending<T> pending();

  /**
   * Where the item with this key is, and what that part knows about it (kube-scheduler's
   * {@code GetPod}, which here also finds items in flight): activeQ; backoffQ with the end of
   * its back-off; the pool with its rejectors, or held by a gate with the gate's name; in
   * flight with the attempt's id. Takes the main lock, so it waits while hints or gates run.
   *
   * <pre>{@code
   * ItemStatus<String, Job> s = queue.lookup("job-7").orElseThrow();
   * switch (s.part()) {
   *   case BACKOFF -> retryAt(((ItemStatus.BackingOff<String, Job>) s).expiry());
   *   case UNSCHEDULABLE -> explain(((ItemStatus.Unschedulable<String, Job>) s).rejectors());
   *   default -> { }
   * }
   * }</pre>
   *
   * @param key the key, as the builder's key function gives it
   * @return an immutable snapshot of the item's state, or empty if the queue does not know the
   *     key (never added, deleted, or popped and ended by {@code done}); a closed queue
   *     still answers
   * @throws NullPointerException if {@code key} is null
   */
  Optional<ItemStatus<K, T>> lookup(K key);

  /**
   * How many items each part holds, counted at one moment. Takes the main lock.
   *
   * @return the counts; unlike {@link Pending#summary}, gated items and items in flight are
   *     counted apart
   */
  QueueCounts counts();

  /**
   * The items in flight (kube-scheduler's {@code InFlightPods}), with their attempt ids. Takes
   * only the activeQ lock, so it never waits for a hint.
   *
   * @return an immutable list in pop order, oldest attempt first; empty if none
   */
  List<ItemStatus.InFlight<K, T>> inFlight();

  /**
   * The items in activeQ (kube-scheduler's {@code PodsInActiveQ}). Copies them under the
   * activeQ lock only, then sorts the copy outside it.
   *
   * @return an immutable list, head first: the order in which {@code pop} would take them
   */
  List<ItemSnapshot<K, T>> activeItems();

  /**
   * The number of pops so far: the id of the latest attempt.
   *
   * @return 0 before the first {@code pop}, then the cycle of the latest one
   */
  long schedulingCycle();

  /**
   * Closes the queue: blocked and later {@code pop}s return empty, scheduled flushes are
   * cancelled, later changes are ignored. Idempotent.
   */
  void close();
}
