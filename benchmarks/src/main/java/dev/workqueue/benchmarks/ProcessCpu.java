package dev.workqueue.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time and voluntary context switches of this whole process, summed over its threads (the
 * JVM's own: GC, JIT, and every Java thread: benchmark threads, a queue's timer pool), read
 * from Linux's per-thread {@code /proc/self/task/TID/schedstat} (first field: ns on the CPU)
 * and {@code /proc/self/task/TID/status} ({@code voluntary_ctxt_switches}).
 *
 * <p>Why not {@code com.sun.management.OperatingSystemMXBean.getProcessCpuTime()}: on this
 * JDK (17, Linux) it comes from {@code times()} in 10 ms ticks, which is several percent of the
 * CPU a 1 s iteration uses, too coarse for a 1.1× bar. Its figure is still taken, beside, as a
 * cross-check ({@link Delta#jmxCpuNanos}). Why not {@code ThreadMXBean}: it sees Java threads
 * only, not the GC's work for what the queue allocates.
 *
 * <p>A difference of two snapshots counts, per thread alive at the second, its time since the
 * first (or since it started). A thread that exits between them loses its time since the first
 * snapshot: the toolkit's shared timer threads exit only after a second idle, so within a 1 s
 * iteration they lose nothing; {@link Delta#jmxCpuNanos} shows if something else did. Taking
 * a snapshot costs about 1-2 ms of CPU (two small files per thread). Off Linux every figure is
 * NaN but the JMX one.
 */
final class ProcessCpu {
  private static final Path TASKS = Path.of("/proc/self/task");
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** Per thread id: {cpu ns, voluntary context switches}; and the JMX process CPU time. */
  record Snapshot(Map<Integer, long[]> tasks, long jmxCpuNanos) {}

  /** CPU and voluntary context switches between two snapshots. */
  record Delta(double cpuNanos, double voluntarySwitches, double jmxCpuNanos) {}

  private ProcessCpu() {}

  static Snapshot take() {
    Map<Integer, long[]> tasks = new HashMap<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(TASKS)) {
      for (Path task : dir) {
        try {
          long cpu = Long.parseLong(firstField(Files.readString(task.resolve("schedstat"))));
          long vcsw = voluntarySwitches(Files.readString(task.resolve("status")));
          tasks.put(Integer.parseInt(task.getFileName().toString()), new long[] {cpu, vcsw});
        } catch (NoSuchFileException e) {
          // the thread exited while we listed it
        }
      }
    } catch (IOException | RuntimeException e) {
      tasks = null; // not Linux, or no schedstat: only the JMX figure
    }
    return new Snapshot(tasks, OS.getProcessCpuTime());
  }

  static Delta between(Snapshot a, Snapshot b) {
    double jmx = b.jmxCpuNanos - a.jmxCpuNanos;
    if (a.tasks == null || b.tasks == null) {
      return new Delta(Double.NaN, Double.NaN, jmx);
    }
    long cpu = 0;
    long vcsw = 0;
    for (Map.Entry<Integer, long[]> e : b.tasks.entrySet()) {
      long[] before = a.tasks.getOrDefault(e.getKey(), new long[2]);
      cpu += e.getValue()[0] - before[0];
      vcsw += e.getValue()[1] - before[1];
    }
    return new Delta(cpu, vcsw, jmx);
  }

  private static String firstField(String s) {
    int end = s.indexOf(' ');
    return (end < 0 ? s : s.substring(0, end)).trim();
  }

  private static long voluntarySwitches(String status) {
    String key = "\nvoluntary_ctxt_switches:";
    int i = status.indexOf(key);
    if (i < 0) {
      throw new IllegalStateException("no " + key.trim() + " in status");
    }
    int start = i + key.length();
    int end = status.indexOf('\n', start);
    return Long.parseLong(status.substring(start, end < 0 ? status.length() : end).trim());
  }
}
