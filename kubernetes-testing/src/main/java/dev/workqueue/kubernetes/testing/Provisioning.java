package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The provisioning script shipped in this jar ({@code kube-apiserver.sh}, beside this class),
 * copied out once per JVM, and the kube-apiserver binary it builds or finds in its cache. Each
 * failure becomes a {@link ProvisioningException} that quotes the script's own message, which
 * names the step that failed.
 */
final class Provisioning {
  static final String SCRIPT = "kube-apiserver.sh";
  /** A cold build takes ~6 min on 2 cores; this bounds a stuck one. */
  private static final long PROVISION_MINUTES = 30;

  private static Path script; // guarded by Provisioning.class
  private static Path binary; // guarded by Provisioning.class

  private Provisioning() {}

  /** The script, copied out of the jar into a temporary file on the first call. */
  static synchronized Path script() {
    if (script == null) {
      try (InputStream in = Provisioning.class.getResourceAsStream(SCRIPT)) {
        if (in == null) {
          throw new ProvisioningException(SCRIPT + " is missing from the class path");
        }
        Path p = Files.createTempFile("workqueue-" + SCRIPT.replace(".sh", "-"), ".sh",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.write(p, in.readAllBytes());
        p.toFile().deleteOnExit();
        script = p;
      } catch (IOException e) {
        throw new UncheckedIOException("copying " + SCRIPT + " out of the jar", e);
      }
    }
    return script;
  }

  /**
   * The kube-apiserver binary: from the cache, or built now (minutes; the script's progress goes
   * to {@code log}).
   *
   * @throws ProvisioningException naming the step that failed
   */
  static synchronized Path kubeApiServer(Path log) {
    if (binary != null) {
      return binary;
    }
    Path out = log.resolveSibling(log.getFileName() + ".out");
    String output;
    try {
      Process p = new ProcessBuilder("bash", script().toString(), "provision")
          .redirectOutput(out.toFile()).redirectError(log.toFile()).start();
      if (!p.waitFor(PROVISION_MINUTES, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new ProvisioningException("'" + SCRIPT + " provision' did not finish within "
            + PROVISION_MINUTES + " min; see " + log);
      }
      output = Files.readString(out, StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0 || output.isEmpty()) {
        throw new ProvisioningException("'" + SCRIPT + " provision' failed (exit "
            + p.exitValue() + "): " + tail(log, 5));
      }
    } catch (IOException e) {
      throw new ProvisioningException("could not run 'bash " + SCRIPT + " provision' (is bash"
          + " installed?): " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProvisioningException("interrupted while provisioning kube-apiserver");
    }
    List<String> lines = output.lines().toList();
    binary = Path.of(lines.get(lines.size() - 1));
    try {
      Files.deleteIfExists(out);
    } catch (IOException e) {
      // a temporary file: left behind at worst
    }
    return binary;
  }

  /** The last {@code n} lines of {@code file}, joined; empty if it cannot be read. */
  static String tail(Path file, int n) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "";
    }
  }
}
