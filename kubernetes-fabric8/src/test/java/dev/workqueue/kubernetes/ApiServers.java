package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.workqueue.kubernetes.testing.ApiServer;
import dev.workqueue.kubernetes.testing.ApiServerChoice;
import dev.workqueue.kubernetes.testing.MockApiServer;
import dev.workqueue.kubernetes.testing.RealApiServer;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The API servers the multi-replica tests run on: a test takes a {@link Kind} parameter and
 * starts its server with {@link #start}. The mock always runs; the real kube-apiserver only
 * when the run asks for it ({@link ApiServerChoice}: {@code -Preal-apiserver}), else its
 * invocation is skipped with a message saying how to turn it on. Such a test
 * class is tagged {@value #TAG} and extended with this class, which provisions the binary
 * before the class's tests (the first time minutes: outside their timeouts).
 */
final class ApiServers implements BeforeAllCallback {
  static final String TAG = "real-apiserver";

  /** Which server. */
  enum Kind {
    MOCK, REAL;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The servers the run asks for (default: the mock only). */
  static Set<Kind> enabled() {
    return ApiServerChoice.named().stream().map(s -> Kind.valueOf(s.toUpperCase(Locale.ROOT)))
        .collect(Collectors.toSet());
  }

  /** Skips the test (an assumption) unless {@code kind} is enabled, saying how to enable it. */
  static void assumeEnabled(Kind kind) {
    assumeTrue(enabled().contains(kind), () -> kind == Kind.REAL ? ApiServerChoice.REAL_OFF
        : "the " + kind + " server is off: " + ApiServerChoice.PROPERTY + "="
            + System.getProperty(ApiServerChoice.PROPERTY));
  }

  /**
   * Starts a server of {@code kind} with {@code namespaces} made (a real server has only its
   * own), or skips the test if that kind is off.
   */
  static ApiServer start(Kind kind, String... namespaces) {
    assumeEnabled(kind);
    ApiServer server = kind == Kind.MOCK ? new MockApiServer() : RealApiServer.builder().start();
    for (String ns : namespaces) {
      server.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }
    return server;
  }

  /**
   * The server a test of {@code kind} runs on: {@code mock}, which the test made beforehand, or
   * a real one started in its place (the mock closed); skips the test if that kind is off.
   */
  static ApiServer on(Kind kind, ApiServer mock, String namespace) {
    assumeEnabled(kind);
    if (kind == Kind.MOCK) {
      return mock;
    }
    mock.close();
    return start(kind, namespace);
  }

  /**
   * Starts the real server {@code builder} describes with {@code namespaces} made, or skips the
   * test if the real server is off.
   */
  static RealApiServer startReal(RealApiServer.Builder builder, String... namespaces) {
    assumeEnabled(Kind.REAL);
    RealApiServer server = builder.start();
    for (String ns : namespaces) {
      server.create(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build());
    }
    return server;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (enabled().contains(Kind.REAL)) {
      RealApiServer.provision();
    }
  }
}
