package dev.workqueue.kubernetes.testing;

import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Which API servers a test run asks for: system property {@value #PROPERTY}, a comma-separated
 * list of {@code mock} and {@code real} (default {@code mock}; the build's {@code
 * real-apiserver} profile sets {@code real}, {@code mock,real} runs both). A test that needs a
 * real kube-apiserver skips itself unless {@link #real()}, with {@link #REAL_OFF} as its reason:
 *
 * <pre>{@code
 * @BeforeAll
 * static void realServerOnly() {
 *   assumeTrue(ApiServerChoice.real(), ApiServerChoice.REAL_OFF);
 *   RealApiServer.provision(); // outside the tests' timeouts: minutes the first time
 * }
 * }</pre>
 */
public final class ApiServerChoice {
  /** The system property that names the servers. */
  public static final String PROPERTY = "workqueue.apiservers";
  /** Why a real-server test was skipped, and how to run it. */
  public static final String REAL_OFF = "the real kube-apiserver tests are off: run them with"
      + " -Preal-apiserver (or -D" + PROPERTY + "=mock,real); the first run builds"
      + " kube-apiserver (~6 min)";

  private static final Set<String> KINDS = Set.of("mock", "real");

  private ApiServerChoice() {}

  /**
   * The servers {@value #PROPERTY} names, lower case.
   *
   * @return {@code mock}, {@code real} or both ({@code mock} when the property is not set, none
   *     when it is empty)
   * @throws IllegalArgumentException if the property names another server
   */
  public static Set<String> named() {
    String value = System.getProperty(PROPERTY, "mock");
    Set<String> named = Arrays.stream(value.split(",")).map(s -> s.strip().toLowerCase(Locale.ROOT))
        .filter(s -> !s.isEmpty()).collect(Collectors.toUnmodifiableSet());
    for (String s : named) {
      if (!KINDS.contains(s)) {
        throw new IllegalArgumentException(PROPERTY + "=" + value + ": unknown server \"" + s
            + "\" (known: mock, real)");
      }
    }
    return named;
  }

  /**
   * Whether the run asks for the real kube-apiserver.
   *
   * @return whether {@value #PROPERTY} names {@code real}
   * @throws IllegalArgumentException if the property names an unknown server
   */
  public static boolean real() {
    return named().contains("real");
  }
}
