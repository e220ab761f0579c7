package dev.workqueue.kubernetes;

import java.util.Map;
import java.util.Objects;

/**
 * An {@link Operator}'s health: each controller's {@link Health}, by name, in the order they
 * were added. A plain toolkit controller's report has no watches and its caches count as
 * synced: only its workers and the leadership say anything.
 *
 * @param controllers each controller's health, by its name
 */
public record OperatorHealth(Map<String, Health> controllers) {
  /**
   * A health report; the map is copied, its order kept.
   *
   * @param controllers each controller's health, by its name
   * @throws NullPointerException if {@code controllers} is or holds null
   */
  public OperatorHealth {
    Objects.requireNonNull(controllers, "controllers must not be null");
    controllers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(
        controllers));
    controllers.forEach((name, health) -> Objects.requireNonNull(health,
        "the health of " + name + " must not be null"));
  }

  /**
   * Liveness: every controller is {@linkplain Health#isLive() live}. One that cannot recover
   * makes the whole process not live: a restart is the cure for all of them alike.
   *
   * @return whether every controller is live
   */
  public boolean isLive() {
    return controllers.values().stream().allMatch(Health::isLive);
  }

  /**
   * Readiness: every controller is {@linkplain Health#isReady() ready} (a replica standing by
   * with warm caches is ready).
   *
   * @return whether every controller is ready
   */
  public boolean isReady() {
    return controllers.values().stream().allMatch(Health::isReady);
  }
}
