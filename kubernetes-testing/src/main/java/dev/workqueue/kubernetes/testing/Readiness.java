package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Whether kube-apiserver answers {@code /readyz} with {@code ok}, asked over TLS trusting only
 * the self-signed certificate the script made in the server's directory, with the admin token
 * the script wrote there.
 */
final class Readiness {
  private final Path dir;
  private final URI readyz;
  private HttpClient http; // guarded by this; made once the certificate exists

  Readiness(Path dir, int port) {
    this.dir = dir;
    this.readyz = URI.create("https://127.0.0.1:" + port + "/readyz");
  }

  Path certificate() {
    return dir.resolve("apiserver.crt");
  }

  String adminToken() {
    try {
      return Files.readString(dir.resolve("admin-token"), StandardCharsets.US_ASCII).strip();
    } catch (IOException e) {
      throw new UncheckedIOException("the admin token is not written yet", e);
    }
  }

  /** Whether {@code /readyz} says {@code ok} now; false while the script makes the files. */
  synchronized boolean ready() {
    if (!Files.exists(dir.resolve("tokens.csv"))) {
      return false; // the script writes it last of the credentials
    }
    try {
      if (http == null) {
        http = HttpClient.newBuilder().sslContext(trusting(certificate()))
            .connectTimeout(Duration.ofSeconds(2)).build();
      }
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(readyz)
          .header("Authorization", "Bearer " + adminToken()).timeout(Duration.ofSeconds(5))
          .build(), HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 && r.body().strip().equals("ok");
    } catch (IOException e) {
      return false; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static SSLContext trusting(Path certificate) {
    try (InputStream in = Files.newInputStream(certificate)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry("kube-apiserver",
          CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(null, tmf.getTrustManagers(), null);
      return ssl;
    } catch (IOException | GeneralSecurityException e) {
      throw new ProvisioningException("cannot trust " + certificate + ": " + e);
    }
  }
}
