package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a JMH JSON result file into {@code benchmarks/RESULTS.md} and two SVG charts ({@link
 * Charts}). The text is {@code results-template.md} beside this class; this class fills in the
 * run's facts and the tables' rows (toolkit ÷ same-run baselines), {@link Bars} the PERF.md bars.
 *
 * <p>Run by {@code benchmarks/run.sh}; by hand: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.workqueue.benchmarks.report.ResultsReport RESULT.json RESULTS.md CHART.png PROFILE} (the
 * lateness chart goes beside CHART.png). What JMH does not record comes as {@code
 * -Dreport.loadavg}, {@code -Dreport.note}, {@code -Dreport.peerDrops}, {@code
 * -Dreport.idleThreads}, and {@code -Dreport.controllerRun} (when and at what load the controller
 * rows were measured, if not in the run the header describes).
 */
public final class ResultsReport {
  /**
   * The hand-off figure of a group ({@code p1c1}, {@code p2c2}), with the {@code keys} variant
   * every hand-off row, bar and chart reads: {@code spread}, whose hashes are spread as real
   * keys' are ({@code HandOffBenchmark}); the {@code sequential} rows of the same run stay in the
   * JSON for the hand-off note.
   */
  static String handOff(String group) {
    return "HandOffBenchmark.%1$s:%1$s_consume keys=spread".formatted(group);
  }

  /** The work-queue contenders: {@code queue} param and label, in report order. */
  static final String[][] QUEUES = {
      {"toolkit", "toolkit `WorkQueue`"}, {"naive", "naive (client-go shape)"},
      {"abq", "`ArrayBlockingQueue`"}, {"lbq", "`LinkedBlockingQueue`"},
      {"peer", "peer `DefaultWorkQueue` (client-java-extended)"}};
  /** The delaying-queue contenders, likewise. */
  static final String[][] DELAYING = {
      {"toolkit", "toolkit `DelayingQueue`"}, {"delayqueue", "`DelayQueue`"},
      {"peer", "peer `DefaultDelayingQueue` (client-java-extended)"}};
  /** The contenders of the delayed-item cost tables, each beside DelayQueue. */
  static final String[][] DELAY_COST = {DELAYING[0],
      {"toolkit-named", "toolkit `DelayingQueue`, named, live metrics"}, DELAYING[1]};
  /** The reconcile loops of {@code ControllerBenchmark}: {@code controller} param and label. */
  static final String[][] CONTROLLERS = {
      {"toolkit", "toolkit `Controller`"},
      {"peer", "peer `DefaultController` (client-java-extended)"},
      {"executor", "`ExecutorService` (fixed pool, a task per key)"}};
  /** Its {@code workers} params. */
  static final List<String> CONTROLLER_WORKERS = List.of("1", "2", "4");
  /** Its figure, with "%s" for a metric (":gc.alloc.rate.norm" or ""), contender and workers. */
  static final String CONTROLLER_REF = "ControllerBenchmark.reconcileAll%s controller=%s workers=%s";

  /** The lateness scenarios: table label, chart label, benchmark, params. */
  static final String[][] LATENESS = {
      {"sparse", "sparse", "LatenessBenchmark.sparse", " pending=0"},
      {"sparse", "sparse, 1 M pending", "LatenessBenchmark.sparse", " pending=1000000"},
      {"100 k/s", "100 k/s", "LatenessBenchmark.rate100k", " pending=0"},
      {"100 k/s", "100 k/s, 1 M pending", "LatenessBenchmark.rate100k", " pending=1000000"},
      {"saturated", "saturated (1 M/s)", "SaturatedLatenessBenchmark.saturated", ""}};

  /** How a figure is shown: scaled, formatted, with JMH's error or without. */
  record Unit(double scale, String format, boolean error) {
    String show(double raw) {
      return Double.isNaN(raw) ? "n/a" : fmt(format, raw * scale);
    }

    String show(Figure f) {
      return show(f.median()) + (error && !Double.isNaN(f.error()) ? " ± " + show(f.error()) : "");
    }
  }

  static final Unit MOPS = new Unit(1e-6, "%.2f", true);
  static final Unit NS = new Unit(1, "%.1f", true);
  static final Unit BYTES = new Unit(1, "%.0f", false);

  /** A column of a work-queue table: a figure without its queue param; then toolkit ÷ this? */
  record Column(String ref, Unit unit, boolean ratio) {}

  private final JmhResults r;
  private final String profile;

  ResultsReport(JmhResults results, String profile) {
    this.r = results;
    this.profile = profile;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 4) {
      System.err.println("usage: ResultsReport RESULT.json RESULTS.md CHART.png quick|full");
      System.exit(2);
    }
    Path json = Path.of(args[0]);
    Path md = Path.of(args[1]);
    Path png = Path.of(args[2]);
    JmhResults results = JmhResults.read(json);
    String chart = md.toAbsolutePath().getParent().relativize(png.toAbsolutePath()).toString();
    String previous = KeptSections.read(md); // before the file is written again
    Files.writeString(md, new ResultsReport(results, args[3])
        .markdown(Files.getLastModifiedTime(json), chart.replace('\\', '/'), previous));
    Path lateness = png.resolveSibling("lateness.png");
    Charts.write(results, args[3], png, lateness);
    System.out.println("wrote " + md + ", " + png + " and " + lateness);
  }

  /** RESULTS.md of a run, its chart, and {@code previous}'s hand-written {@link KeptSections}. */
  String markdown(FileTime runTime, String chartPath, String previous) throws IOException {
    Map<String, String> v = new HashMap<>(r.run);
    v.put("kept", KeptSections.block(previous));
    boolean full = profile.equals("full");
    v.put("profile", profile);
    v.put("quickProfile", full ? "" : profile);
    v.put("quickForks", full ? "" : v.get("forks"));
    v.put("date", DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
        .format(runTime.toInstant().atZone(ZoneOffset.UTC)));
    v.put("machine", machine());
    v.put("loadavg", System.getProperty("report.loadavg", "").trim());
    v.put("note", System.getProperty("report.note", "").trim());
    String drops = System.getProperty("report.peerDrops", "").trim();
    v.put("peerDrops", drops.isEmpty() ? "was not run" : drops);
    v.put("handoffChart", chartPath);
    v.put("latenessChart", chartPath.replaceFirst("[^/]*$", "lateness.png"));
    v.put("handoff", queueRows(new Column(handOff("p1c1"), MOPS, true),
        new Column(handOff("p2c2"), MOPS, true)));
    v.put("oneThread", queueRows(new Column("OneThreadBenchmark.addGetDone", NS, true),
        new Column("OneThreadBenchmark.addGetDone:gc.alloc.rate.norm", BYTES, false)));
    v.put("dedupHit", queueRows(new Column("DedupHitBenchmark.addQueued", NS, true),
        new Column("DedupHitBenchmark.addQueued:gc.alloc.rate.norm", BYTES, false)));
    v.put("addStorm", queueRows(new Column("AddStormBenchmark.storm:storm_consume", MOPS, true)));
    v.put("addAfter", addAfterRows());
    v.put("lateness", latenessRows());
    v.put("memory", memoryRows());
    v.put("delayedCpu", spreadRows("DelayedCpuBenchmark.produce", " consumers=", List.of("1", "4"),
        "cpu_ns_per_item %.0f", "vcsw_per_item %.3f", "delivered %.0f"));
    v.put("massDueAdd", spreadRows("MassDueAddBenchmark.massFallsDue", null, List.of(""),
        "max_add_us %.0f", "p999_add_us %.1f", "adds %.0f"));
    v.put("firstOfMany", spreadRows("FirstOfManyDueBenchmark.round", null, List.of(""),
        "first_p50_us %.1f", "first_p99_us %.1f", "rounds %.0f"));
    v.put("priority", priorityRows());
    v.put("controller", controllerRows());
    v.put("controllerRun", System.getProperty("report.controllerRun", "").trim());
    v.put("bars", new Bars(r).rows());
    return fill(template(v.get("bars")), v);
  }

  /** One row per {@link #QUEUES} contender measured in any column. */
  private String queueRows(Column... columns) {
    List<String> rows = new ArrayList<>();
    for (String[] q : QUEUES) {
      List<String> cells = new ArrayList<>(List.of(q[1]));
      boolean any = false;
      for (Column c : columns) {
        Optional<Figure> f = r.fig(c.ref + " queue=" + q[0]);
        any |= f.isPresent();
        cells.add(f.map(c.unit::show).orElse("–"));
        if (c.ratio) {
          cells.add(vsToolkit(c.ref + " queue=" + q[0], c.ref + " queue=toolkit", "–"));
        }
      }
      if (any) {
        rows.add(row(cells.toArray(String[]::new)));
      }
    }
    return rows(rows);
  }

  private String addAfterRows() {
    String d = "DelayedInsertBenchmark.";
    List<String> rows = new ArrayList<>();
    for (String[] i : new String[][] {{"toolkit `DelayingQueue.addAfter`", "toolkitAddAfter"},
        {"`DelayQueue.offer`", "delayQueueOffer"},
        {"`PriorityQueue.offer` (no lock)", "priorityQueueOffer"},
        {"peer `DefaultDelayingQueue.addAfter`, paced so nothing drops (see below)",
            "peerAddAfter"}}) {
      r.fig(d + i[1]).ifPresent(f -> rows.add(
          row(i[0], NS.show(f), vsToolkit(d + i[1], d + "toolkitAddAfter", ""))));
    }
    return rows(rows);
  }

  private String latenessRows() {
    List<String> rows = new ArrayList<>();
    for (String[] sc : LATENESS) {
      for (String[] q : DELAYING) {
        String ref = sc[2] + ":%s queue=" + q[0] + sc[3];
        String p50 = ref.formatted("p50_us");
        r.fig(p50).ifPresent(f -> rows.add(row(sc[0], sc[3].endsWith("000000") ? "1 M" : "0",
            q[1], fmt("%.1f", f.median()), cell(ref.formatted("p99_us"), "%.1f"),
            cell(ref.formatted("delivered"), "%.0f"),
            vsToolkit(p50, p50.replace("queue=" + q[0], "queue=toolkit"), ""))));
      }
    }
    return rows(rows);
  }

  private String memoryRows() {
    String m = "DelayedMemoryBenchmark.measure:bytesPerItem queue=";
    List<String> rows = new ArrayList<>();
    for (String[] q : DELAYING) {
      r.fig(m + q[0]).ifPresent(f -> rows.add(row(q[1], fmt("%.1f", f.median()),
          vsToolkit(m + q[0], m + "toolkit", ""))));
    }
    return rows(rows);
  }

  /**
   * One row per value of {@code param} (" name=", or null: none) and {@link #DELAY_COST} queue;
   * {@code columns} are "metric format"; cells "median [min–max over iterations]"; the last is
   * toolkit ÷ DelayQueue of the first column's medians, flagged where the spreads overlap.
   */
  private String spreadRows(String bench, String param, List<String> values, String... columns) {
    List<String> rows = new ArrayList<>();
    for (String v : values) {
      for (String[] q : DELAY_COST) {
        String ref = bench + ":%s queue=" + q[0] + (param == null ? "" : param + v);
        String first = ref.formatted(columns[0].split(" ")[0]);
        Optional<Figure> base = r.fig(first.replace("queue=" + q[0], "queue=delayqueue"));
        r.fig(first).ifPresent(f -> {
          List<String> cells = new ArrayList<>(param == null ? List.of() : List.of(v));
          cells.add(q[1]);
          for (String c : columns) {
            String[] mf = c.split(" ");
            cells.add(r.fig(ref.formatted(mf[0])).map(x -> spread(x, mf[1])).orElse("–"));
          }
          cells.add(q[0].equals("delayqueue") || base.isEmpty() ? "" : vsBaseline(f, base.get()));
          rows.add(row(cells.toArray(String[]::new)));
        });
      }
    }
    return rows(rows);
  }

  /** The priority queue beside PriorityBlockingQueue, per scenario and resident count. */
  private String priorityRows() {
    List<String> rows = new ArrayList<>();
    for (String[] sc : new String[][] {
        {"add + get + done, 1 thread", "toolkitAddGetDone_1t", "pbqPollOffer_1t"},
        {"add + poll + done, 2 threads", "toolkitAddPollDone_2t", "pbqOfferPoll_2t"}}) {
      for (String n : List.of("1", "1000")) {
        String t = "PriorityQueueBenchmark." + sc[1] + "%s resident=" + n;
        String p = "PriorityQueueBenchmark." + sc[2] + "%s resident=" + n;
        Optional<Figure> ta = r.fig(t.formatted(":gc.alloc.rate.norm"));
        Optional<Figure> pa = r.fig(p.formatted(":gc.alloc.rate.norm"));
        t = t.formatted("");
        p = p.formatted("");
        if (r.fig(t).isPresent() || r.fig(p).isPresent()) {
          rows.add(row(sc[0], n, r.fig(t).map(NS::show).orElse("–"),
              r.fig(p).map(NS::show).orElse("–"), ratio(r.ratio(t, p), "–"),
              ta.isEmpty() && pa.isEmpty() ? "–" : bytes(ta) + " / " + bytes(pa)));
        }
      }
    }
    return rows(rows);
  }

  /**
   * The controllers' reconciles/s per worker count: median [min–max over iterations] in M/s,
   * B/reconcile, and toolkit ÷ this (flagged where the spreads overlap).
   */
  private String controllerRows() {
    List<String> rows = new ArrayList<>();
    for (String w : CONTROLLER_WORKERS) {
      Optional<Figure> toolkit = r.fig(CONTROLLER_REF.formatted("", "toolkit", w));
      for (String[] c : CONTROLLERS) {
        r.fig(CONTROLLER_REF.formatted("", c[0], w)).ifPresent(f -> rows.add(row(w, c[1],
            spread(f, "%.2f", 1e-6),
            bytes(r.fig(CONTROLLER_REF.formatted(":gc.alloc.rate.norm", c[0], w))),
            c[0].equals("toolkit") || toolkit.isEmpty() ? "" : vsBaseline(toolkit.get(), f))));
      }
    }
    return rows(rows);
  }

  /** A baseline table cell: the time and allocation per op of the benchmark {@code ref}. */
  private String baseline(String ref) {
    String[] bp = (ref + " ").split(" ", 2);
    Optional<Figure> alloc = r.fig(bp[0] + ":gc.alloc.rate.norm " + bp[1].trim());
    return r.fig(ref).map(f -> NS.show(f) + " " + (f.unit().isEmpty() ? "ns/op" : f.unit())
        + alloc.map(a -> ", " + BYTES.show(a.median()) + " B/op").orElse(""))
        .orElse("not measured in this run");
  }

  /**
   * The template, keeping the notes of the bars that are missed or not decided (a ratio whose
   * spreads overlap, or a mode not judged) only, and their heading if any.
   */
  private static String template(String bars) throws IOException {
    String text;
    try (InputStream in = ResultsReport.class.getResourceAsStream("results-template.md")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String heading = "### What limits the missed and undecided bars\n\n";
    int at = text.indexOf(heading);
    List<String> kept = new ArrayList<>();
    for (String bar : bars.split("\n")) {
      for (String note : text.substring(at + heading.length()).split("\n")) {
        String name = note.replaceFirst("^- \\*\\*(.*?)\\*\\*: .*", "$1");
        boolean missedOrUndecided = bar.contains("**missed**") || bar.contains("spreads overlap")
            || bar.contains("not judged");
        if (missedOrUndecided && bar.startsWith("| " + name) && !kept.contains(note)) {
          kept.add(note);
        }
      }
    }
    return text.substring(0, at)
        + (kept.isEmpty() ? "" : heading + String.join("\n", kept) + "\n\n");
  }

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([^}]+)}}");
  private static final String LEAVE_OUT = "\u0000";

  /**
   * Drops comments, fills each {@code {{name}}} ({@code {{Class.method params}}}: {@link
   * #baseline}), and leaves out each line with an empty value and the blank line after it.
   */
  private String fill(String template, Map<String, String> values) {
    Matcher m = PLACEHOLDER.matcher(template.replaceAll("(?s)<!--.*?-->\n", ""));
    return m.replaceAll(p -> {
      String name = p.group(1);
      String value = name.contains(".") ? baseline(name) : values.get(name);
      if (value == null) {
        throw new IllegalArgumentException("no value for {{" + name + "}}");
      }
      return Matcher.quoteReplacement(value.isEmpty() ? LEAVE_OUT : value);
    }).replaceAll("(?m)^.*" + LEAVE_OUT + ".*\n\n?", "");
  }

  private String vsToolkit(String ref, String toolkitRef, String absent) {
    return ref.equals(toolkitRef) ? "" : ratio(r.ratio(toolkitRef, ref), absent);
  }

  private String cell(String ref, String format) {
    return r.fig(ref).map(f -> fmt(format, f.median())).orElse("–");
  }

  static String row(String... cells) {
    return "| " + String.join(" | ", cells) + " |";
  }

  static String rows(List<String> rows) {
    return rows.isEmpty() ? "| not measured in this run |" : String.join("\n", rows);
  }

  static String fmt(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }

  private static String bytes(Optional<Figure> f) {
    return f.map(x -> BYTES.show(x.median())).orElse("–");
  }

  static String ratio(double r) {
    return Double.isNaN(r) || Double.isInfinite(r) ? "n/a" : fmt("%.2f×", r);
  }

  static String ratio(Optional<Double> r, String absent) {
    return r.map(ResultsReport::ratio).orElse(absent);
  }

  /** "median [min–max]" over the figure's iterations. */
  static String spread(Figure f, String format) {
    return spread(f, format, 1);
  }

  /** "median [min–max]" over the figure's iterations, each times {@code scale}. */
  static String spread(Figure f, String format, double scale) {
    return fmt(format + " [" + format + "–" + format + "]", f.median() * scale, f.min() * scale,
        f.max() * scale);
  }

  /** {@code a ÷ b} of the medians, with a warning when the spreads overlap. */
  static String vsBaseline(Figure a, Figure b) {
    return ratio(a.median() / b.median()) + (a.overlaps(b) ? " (spreads overlap)" : "");
  }

  /** Machine facts, read where the report is written (run.sh does so right after JMH). */
  private static String machine() {
    String model = "unknown CPU"; // not Linux
    try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
      model = lines.filter(l -> l.startsWith("model name")).findFirst()
          .map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse(model);
    } catch (IOException | RuntimeException e) {
      // leave "unknown CPU"
    }
    return Runtime.getRuntime().availableProcessors() + " cores (nproc), " + model + ", "
        + System.getProperty("os.name") + " " + System.getProperty("os.arch");
  }
}
