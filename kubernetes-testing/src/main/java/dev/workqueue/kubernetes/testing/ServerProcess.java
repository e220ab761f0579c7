package dev.workqueue.kubernetes.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * etcd or kube-apiserver, run by the provisioning script in the foreground (the script {@code
 * exec}s it, so this process is the server itself), its output in a log file. {@link #stop()}
 * asks it to end (SIGTERM) and kills it if it has not within ten seconds.
 */
final class ServerProcess {
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration STOP_GRACE = Duration.ofSeconds(10);

  private final String name;
  private final Path log;
  private final Process process;

  private ServerProcess(String name, Path log, Process process) {
    this.name = name;
    this.log = log;
    this.process = process;
  }

  /** Runs {@code kube-apiserver.sh <args>} with its output appended to {@code log}. */
  static ServerProcess start(String name, Path log, List<String> args) {
    List<String> command = new ArrayList<>(List.of("bash", Provisioning.script().toString()));
    command.addAll(args);
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
      return new ServerProcess(name, log, p);
    } catch (IOException e) {
      throw new ProvisioningException("could not start " + name + " (" + String.join(" ", command)
          + "): " + e.getMessage());
    }
  }

  /**
   * Returns once {@code ready} is true, polling it every 100 ms for at most {@code within}.
   *
   * @throws ProvisioningException if the process ends first or {@code within} passes, quoting
   *     the end of its log
   */
  void awaitReady(String what, BooleanSupplier ready, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!ready.getAsBoolean()) {
      if (!process.isAlive()) {
        throw new ProvisioningException(name + " exited (" + process.exitValue() + ") before "
            + what + "; " + log + " ends:\n" + Provisioning.tail(log, 15));
      }
      if (System.nanoTime() - deadline > 0) {
        stop();
        throw new ProvisioningException(name + ": " + what + " not within " + within.toSeconds()
            + " s; " + log + " ends:\n" + Provisioning.tail(log, 15));
      }
      try {
        Thread.sleep(POLL.toMillis()); // polling another process: nothing to wait on
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        stop();
        throw new ProvisioningException("interrupted while waiting for " + name);
      }
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Stops the process (SIGTERM, then SIGKILL after ten seconds) and waits for its end. */
  void stop() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    boolean interrupted = false;
    try {
      if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly().waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      interrupted = true;
      process.destroyForcibly();
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
