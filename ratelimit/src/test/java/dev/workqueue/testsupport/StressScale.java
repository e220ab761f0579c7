package dev.workqueue.testsupport;

/**
 * How big the stress tests run: {@code STRESS_SCALE} (environment) or {@code stress.scale}
 * (system property) multiplies their operation counts. Default 1: small enough for every
 * {@code mvn verify}; run with {@code STRESS_SCALE=100} for a long soak.
 */
public final class StressScale {
  private StressScale() {}

  public static int factor() {
    String v = System.getProperty("stress.scale", System.getenv("STRESS_SCALE"));
    if (v == null || v.isBlank()) {
      return 1;
    }
    int f = Integer.parseInt(v.trim());
    if (f < 1) {
      throw new IllegalArgumentException("STRESS_SCALE must be >= 1, was " + f);
    }
    return f;
  }
}
