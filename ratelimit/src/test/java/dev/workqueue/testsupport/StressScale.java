package dev.workqueue.testsupport;

/**
 * How big the stress tests run: {@code STRESS_SCALE} (environment) or {@code stress.scale}
 * (system property) multiplies their operation counts and the Lincheck tests' iterations.
 * Default 1: small enough for every {@code mvn verify}; {@code mvn verify -Plong} runs at 10
 * (the pom passes {@code -Dstress.scale} on to the test JVMs), and {@code STRESS_SCALE=100} is
 * a long soak. A blank property (the pom's default) means unset.
 */
public final class StressScale {
  private StressScale() {}

  public static int factor() {
    String v = System.getProperty("stress.scale");
    if (v == null || v.isBlank()) {
      v = System.getenv("STRESS_SCALE");
    }
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
