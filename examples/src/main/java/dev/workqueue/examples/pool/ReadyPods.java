package dev.workqueue.examples.pool;

import dev.workqueue.WorkQueue;
import dev.workqueue.clock.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The seed's {@code readyQueue} plus {@code reservations}: idle pods in the order a refresh
 * first saw them, each at most once, and the pods already handed out.
 *
 * <p>The FIFO with dedup is a toolkit {@link WorkQueue}: adding a pod that is already queued
 * changes nothing, so repeated refreshes (an idle notification and a poll in quick
 * succession) never admit a pod twice. A pod taken from it is marked done at once: it is not
 * "processing" in the queue's sense, the reservation is what keeps it out while its claim
 * propagates.
 *
 * <p>Used by the scheduler's thread only, except {@link #release} and {@link #reservedCount}.
 */
final class ReadyPods {
  private final WorkQueue<PodRef> fifo;
  private final Reservations reservations;
  /** The UIDs of the latest listing: a queued pod missing from it is stale and dropped. */
  private Set<String> lastListed = Set.of();
  private volatile int readyCount;

  ReadyPods(Clock clock, Duration reservationTtl) {
    this.fifo = WorkQueue.<PodRef>builder().clock(clock).build();
    this.reservations = new Reservations(reservationTtl, clock);
  }

  /**
   * Admits the listed pods that are not reserved, in listing order; pods already queued keep
   * their place.
   *
   * @return the number of pods newly admitted
   */
  int admit(List<PodRef> idle) {
    reservations.sweep();
    Set<String> listed = new HashSet<>(idle.size() * 2);
    int before = fifo.size();
    for (PodRef pod : idle) {
      listed.add(pod.uid());
      if (!reservations.isReserved(pod.uid())) {
        fifo.add(pod);
      }
    }
    lastListed = listed;
    int after = fifo.size();
    readyCount = after;
    return after - before;
  }

  /**
   * The seed's {@code popUnreservedAndReserve}: takes the oldest admitted pod that is still
   * listed and not reserved, and reserves it.
   *
   * @return the pod, now reserved, or null if none is ready
   */
  PodRef takeAndReserve() {
    try {
      while (true) {
        Optional<PodRef> next = fifo.poll(Duration.ZERO);
        if (next.isEmpty()) {
          return null;
        }
        PodRef pod = next.get();
        fifo.done(pod);
        if (lastListed.contains(pod.uid()) && reservations.tryReserve(pod.uid())) {
          return pod;
        }
      }
    } catch (InterruptedException e) {
      // poll(ZERO) never waits; keep the flag for the caller's loop.
      Thread.currentThread().interrupt();
      return null;
    } finally {
      readyCount = fifo.size();
    }
  }

  /** Makes a reserved pod eligible again (its claim failed without touching it). */
  void release(PodRef pod) {
    reservations.release(pod.uid());
  }

  /** Pods admitted and not yet taken; may include pods that the next take finds stale. */
  int readyCount() {
    return readyCount;
  }

  long reservedCount() {
    return reservations.estimatedSize();
  }
}
