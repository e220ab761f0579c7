package dev.workqueue.kubernetes;

import java.util.ArrayList;
import java.util.List;

/**
 * The start of every reconcile of every replica, in the order they began: shared by the
 * replicas of a test, to check that once a new leader started reconciling, the old one started
 * nothing more. Order only, no times: a loaded machine cannot break it.
 */
final class ReconcileTimeline {
  private final List<String> starts = new ArrayList<>();

  /** Called by {@code replica}'s reconciler as it begins. */
  synchronized void started(String replica) {
    starts.add(replica);
  }

  /** A position in the timeline: what starts after it is after every start so far. */
  synchronized int mark() {
    return starts.size();
  }

  /** The replicas of the starts since {@code mark}, in order. */
  synchronized List<String> since(int mark) {
    return List.copyOf(starts.subList(mark, starts.size()));
  }

  /** Whether a replica other than {@code replica} started a reconcile since {@code mark}. */
  synchronized boolean anotherStartedSince(int mark, String replica) {
    return since(mark).stream().anyMatch(r -> !r.equals(replica));
  }

  /** Whether {@code replica} started a reconcile since {@code mark}. */
  synchronized boolean startedSince(int mark, String replica) {
    return since(mark).contains(replica);
  }

  /**
   * The starts of {@code old} that came after the first start by another replica since {@code
   * mark}: two leaders at once if any.
   */
  synchronized List<String> overlapping(int mark, String old) {
    List<String> after = since(mark);
    List<String> overlap = new ArrayList<>();
    boolean newLeaderStarted = false;
    for (int i = 0; i < after.size(); i++) {
      String r = after.get(i);
      if (!r.equals(old)) {
        newLeaderStarted = true;
      } else if (newLeaderStarted) {
        overlap.add(old + " at " + (mark + i));
      }
    }
    return overlap;
  }
}
