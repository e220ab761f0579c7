package dev.workqueue.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The hand-written sections of RESULTS.md (each session's measurements and notes, which no JMH
 * run writes), between two marks that {@link ResultsReport} writes and, when it writes the file
 * again, finds and keeps.
 */
final class KeptSections {
  /** The line before the hand-written sections. */
  static final String START = "<!-- Hand-written sections: benchmarks/run.sh keeps what stands"
      + " between this line and the end mark when it writes this file again. -->";
  /** The line after them. */
  static final String END = "<!-- End of the hand-written sections. -->";

  private KeptSections() {}

  /** The text of the report at {@code md}, or empty if there is none yet. */
  static String read(Path md) throws IOException {
    return Files.exists(md) ? Files.readString(md, StandardCharsets.UTF_8) : "";
  }

  /** The marks, and between them what stood between them in {@code previous} (if anything). */
  static String block(String previous) {
    return START + "\n" + between(previous) + END;
  }

  /** What stands between the marks in {@code previous}, ending in a newline; else empty. */
  static String between(String previous) {
    int start = previous.indexOf(START + "\n");
    int end = previous.indexOf(END, Math.max(start, 0));
    if (start < 0 || end < 0) {
      return "";
    }
    return previous.substring(start + START.length() + 1, end);
  }
}
