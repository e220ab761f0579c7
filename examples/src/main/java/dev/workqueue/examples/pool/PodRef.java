package dev.workqueue.examples.pool;

import java.util.Objects;

/**
 * A pod as the scheduler sees it: its name and its UID. Two refs are the same pod when both
 * match; the ready queue deduplicates by this equality, the reservations by {@link #uid()}.
 *
 * @param name the pod's name within its namespace
 * @param uid the pod's UID, unique over the pod's life (a recreated pod gets a new one)
 */
public record PodRef(String name, String uid) {

  /** @throws NullPointerException if {@code name} or {@code uid} is null */
  public PodRef {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(uid, "uid");
  }
}
