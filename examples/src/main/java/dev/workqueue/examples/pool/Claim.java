package dev.workqueue.examples.pool;

import java.util.Objects;

/**
 * A successful claim: the value a {@link ClaimRequest}'s future completes with (the seed's
 * {@code ClaimResult{Pod}}).
 *
 * @param pool the pool the pod was claimed from
 * @param pod the pod, now Starting and owned by the request
 * @param attempts claim writes made for the request, this one included (1 without conflicts)
 */
public record Claim(String pool, PodRef pod, int attempts) {

  /** @throws NullPointerException if {@code pool} or {@code pod} is null */
  public Claim {
    Objects.requireNonNull(pool, "pool");
    Objects.requireNonNull(pod, "pod");
  }
}
