package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Turns a JMH JSON result file into {@code benchmarks/RESULTS.md} (machine, JDK, date, each
 * figure beside its same-run baseline with the ratio, and the PERF.md bars: held, missed, or
 * not measured yet) and an SVG bar chart of hand-off throughput.
 *
 * <p>Run by {@code benchmarks/run.sh}; by hand: {@code java -cp benchmarks/target/benchmarks.jar
 * dev.workqueue.benchmarks.report.ResultsReport RESULT.json RESULTS.md CHART.svg PROFILE}.
 *
 * <p>What is compared with what lives in {@link #QUEUES}, the {@code *Table} methods and
 * {@link Bars}: a new scenario adds a table there, a new toolkit figure replaces a "not
 * measured yet" in {@link Bars}.
 */
public final class ResultsReport {
  /** The work-queue contenders by their {@code queue} param, in report order. */
  static final List<String[]> QUEUES = List.of(
      new String[] {"toolkit", "toolkit `WorkQueue`"},
      new String[] {"naive", "naive (client-go shape)"},
      new String[] {"abq", "`ArrayBlockingQueue`"},
      new String[] {"lbq", "`LinkedBlockingQueue`"},
      new String[] {"peer", "peer `DefaultWorkQueue` (client-java-extended)"});

  /** A column of a work-queue table: one figure of one benchmark. */
  record Column(String header, String bench, String metric, Unit unit, boolean ratio) {}

  /** How a figure is shown, and whether more is better. */
  enum Unit {
    MOPS("M ops/s", 1e-6, "%.2f", true),
    NS("ns/op", 1, "%.1f", false),
    BYTES("B/op", 1, "%.0f", false);

    final String label;
    final double scale;
    final String format;
    final boolean higherIsBetter;

    Unit(String label, double scale, String format, boolean higherIsBetter) {
      this.label = label;
      this.scale = scale;
      this.format = format;
      this.higherIsBetter = higherIsBetter;
    }

    String show(double raw) {
      return Double.isNaN(raw) ? "n/a" : String.format(Locale.ROOT, format, raw * scale);
    }
  }

  private final JmhResults results;
  private final String profile;
  private final StringBuilder md = new StringBuilder();

  ResultsReport(JmhResults results, String profile) {
    this.results = results;
    this.profile = profile;
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 4) {
      System.err.println("usage: ResultsReport RESULT.json RESULTS.md CHART.svg quick|full");
      System.exit(2);
    }
    Path json = Path.of(args[0]);
    JmhResults results = JmhResults.read(json);
    ResultsReport report = new ResultsReport(results, args[3]);
    Path svg = Path.of(args[2]);
    Path mdFile = Path.of(args[1]);
    String relativeSvg = mdFile.toAbsolutePath().getParent().relativize(svg.toAbsolutePath())
        .toString().replace('\\', '/');
    Files.writeString(mdFile, report.markdown(Files.getLastModifiedTime(json), relativeSvg));
    Files.writeString(svg, HandOffChart.svg(results, report.profile));
    Path latenessSvg = svg.resolveSibling("lateness.svg");
    Files.writeString(latenessSvg, LatenessChart.svg(results, report.profile));
    System.out.println("wrote " + mdFile + ", " + svg + " and " + latenessSvg);
  }

  String markdown(FileTime runTime, String chartPath) {
    header(runTime);
    md.append("![hand-off throughput](").append(chartPath).append(")\n\n");
    queueTable("Hand-off throughput (distinct keys)",
        "Producers add, consumers get → done (put/take for the plain queues); at most 1024 "
            + "items in flight. Figure: the consumers' rate. `HandOffBenchmark`.",
        List.of(
            new Column("1P+1C", "HandOffBenchmark.p1c1", "p1c1_consume", Unit.MOPS, true),
            new Column("2P+2C", "HandOffBenchmark.p2c2", "p2c2_consume", Unit.MOPS, true)),
        "PERF.md, for orientation: ABQ 8.5 / 7.2, LBQ 4.4 / 2.8, naive 2.3 / 2.1 M/s.");
    queueTable("add + get + done, one thread",
        "One item's round trip on one thread (ABQ: put + take, the offer + poll lock path). "
            + "`OneThreadBenchmark`.",
        List.of(
            new Column("time", "OneThreadBenchmark.addGetDone", "", Unit.NS, true),
            new Column("alloc", "OneThreadBenchmark.addGetDone", "gc.alloc.rate.norm",
                Unit.BYTES, false)),
        "PERF.md, for orientation: naive 205 ns and 64 B, ABQ offer+poll 66 ns.");
    queueTable("Dedup-hit add",
        "Adding an item that is already queued (1024 queued). `DedupHitBenchmark`.",
        List.of(
            new Column("time", "DedupHitBenchmark.addQueued", "", Unit.NS, true),
            new Column("alloc", "DedupHitBenchmark.addQueued", "gc.alloc.rate.norm",
                Unit.BYTES, false)),
        "PERF.md, for orientation: naive 39 ns.");
    queueTable("Add storm: consumer rate",
        "Two producers re-add 16 hot keys non-stop; one consumer gets → done. Figure: the "
            + "consumer's rate. `AddStormBenchmark`.",
        List.of(new Column("consumer", "AddStormBenchmark.storm", "storm_consume", Unit.MOPS,
            true)),
        null);
    delayedTables(chartPath.contains("/")
        ? chartPath.substring(0, chartPath.lastIndexOf('/') + 1) + "lateness.svg"
        : "lateness.svg");
    delayCostTables();
    priorityTable();
    baselineTable();
    new Bars(results, md, profile).write();
    return md.toString();
  }

  private void header(FileTime runTime) {
    JmhResults.RunInfo run = results.run;
    md.append("# Benchmark results (").append(profile).append(" profile)\n\n");
    if (!"full".equals(profile)) {
      md.append("> **Quick profile**: ").append(run.forks()).append(" fork × ")
          .append(run.measurementIterations()).append(" × ").append(run.measurementTime())
          .append(". A smoke check of the harness and a first look, not evidence: PERF.md "
              + "judges the bars on at least 2 forks × 5 × 1 s (`benchmarks/run.sh full`).\n\n");
    }
    md.append("Generated by `benchmarks/run.sh ").append(profile)
        .append("` from `benchmarks/results/jmh-").append(profile).append(".json`.\n\n");
    md.append("| | |\n|---|---|\n");
    md.append("| date (UTC) | ").append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm")
        .format(runTime.toInstant().atZone(ZoneOffset.UTC))).append(" |\n");
    md.append("| machine | ").append(Machine.describe()).append(" |\n");
    String load = System.getProperty("report.loadavg", "");
    if (!load.isBlank()) {
      md.append("| load average when the report was written, just after the run (1/5/15 min) | ").append(load.trim())
          .append(" (other builds share the cores; more than the core count means the "
              + "figures were squeezed) |\n");
    }
    String note = System.getProperty("report.note", "");
    if (!note.isBlank()) {
      md.append("| note | ").append(note.trim()).append(" |\n");
    }
    md.append("| JDK | ").append(run.jdk()).append(", ").append(run.vm()).append(" |\n");
    md.append("| JMH | ").append(run.jmh()).append(": ").append(run.forks()).append(" fork(s), ")
        .append(run.warmupIterations()).append(" × ").append(run.warmupTime())
        .append(" warm-up, ").append(run.measurementIterations()).append(" × ")
        .append(run.measurementTime()).append(" measured |\n\n");
    md.append("Figures are medians over all measured iterations of all forks; ± is JMH's "
        + "99.9% error of the mean. Ratios are toolkit ÷ that row, same run: for rates more "
        + "is better, for times and bytes less is better.\n\n");
  }

  private void queueTable(String title, String what, List<Column> columns, String note) {
    md.append("## ").append(title).append("\n\n").append(what).append("\n\n");
    StringBuilder head = new StringBuilder("| queue |");
    StringBuilder rule = new StringBuilder("|---|");
    for (Column c : columns) {
      head.append(' ').append(c.header).append(" (").append(c.unit.label).append(") |");
      rule.append("---:|");
      if (c.ratio) {
        head.append(" toolkit ÷ this |");
        rule.append("---:|");
      }
    }
    md.append(head).append('\n').append(rule).append('\n');
    boolean any = false;
    for (String[] q : QUEUES) {
      List<Optional<Figure>> cells = columns.stream()
          .map(c -> results.find(c.bench, c.metric, q[0])).collect(Collectors.toList());
      if (cells.stream().allMatch(Optional::isEmpty)) {
        continue;
      }
      any = true;
      md.append("| ").append(q[1]).append(" |");
      for (int i = 0; i < columns.size(); i++) {
        Column c = columns.get(i);
        Optional<Figure> f = cells.get(i);
        md.append(' ').append(f.map(x -> withError(x, c.unit)).orElse("–")).append(" |");
        if (c.ratio) {
          Optional<Figure> toolkit = results.find(c.bench, c.metric, "toolkit");
          String ratio = "–";
          if ("toolkit".equals(q[0])) {
            ratio = "";
          } else if (toolkit.isPresent() && f.isPresent()) {
            ratio = ratio(toolkit.get().median() / f.get().median());
          }
          md.append(' ').append(ratio).append(" |");
        }
      }
      md.append('\n');
    }
    if (!any) {
      md.append("| not measured in this run |\n");
    }
    md.append('\n');
    if (note != null) {
      md.append(note).append("\n\n");
    }
  }

  /** The delaying queues this report knows, by their {@code queue} param, in report order. */
  static final List<String[]> DELAYING = List.of(
      new String[] {"toolkit", "toolkit `DelayingQueue`"},
      new String[] {"delayqueue", "`DelayQueue`"},
      new String[] {"peer", "peer `DefaultDelayingQueue` (client-java-extended)"});

  /** addAfter with 1 M pending, lateness, memory per pending item: toolkit, JDK, peer. */
  private void delayedTables(String latenessChartPath) {
    md.append("## addAfter with 1 M pending\n\n")
        .append("100 k inserts due 1–2 h ahead into a queue rebuilt per iteration with 1 M "
            + "such items (array room made beforehand). `DelayedInsertBenchmark`. Single-shot "
            + "iterations: `-prof gc` would count the rebuild too, so no B/op is shown.\n\n")
        .append("| queue | time (ns/insert) | toolkit ÷ this |\n|---|---:|---:|\n");
    String[][] inserts = {
        {"toolkit `DelayingQueue.addAfter`", "toolkitAddAfter", "PERF.md bar: ≤ 1.5× DelayQueue"},
        {"`DelayQueue.offer`", "delayQueueOffer", "PERF.md: 196 ns"},
        {"`PriorityQueue.offer` (no lock)", "priorityQueueOffer", "PERF.md: 158 ns"},
        {"peer `DefaultDelayingQueue.addAfter`, paced so nothing drops (see below)",
            "peerAddAfter", ""}};
    Optional<Figure> toolkitInsert =
        results.find("DelayedInsertBenchmark.toolkitAddAfter", "", null);
    boolean any = false;
    for (String[] row : inserts) {
      Optional<Figure> f = results.find("DelayedInsertBenchmark." + row[1], "", null);
      if (f.isEmpty()) {
        continue;
      }
      any = true;
      String r = row[1].equals("toolkitAddAfter") || toolkitInsert.isEmpty() ? ""
          : ratio(toolkitInsert.get().median() / f.get().median());
      md.append("| ").append(row[0]).append(" | ").append(withError(f.get(), Unit.NS))
          .append(" | ").append(r).append(" |\n");
    }
    if (!any) {
      md.append("| not measured in this run | | |\n");
    }
    md.append("\nThe peer cannot take a burst of delayed adds: its `addAfter` `offer`s the "
        + "item to a 1000-slot buffer that its own thread drains into a `DelayQueue` and a "
        + "`ConcurrentHashMap`, and the item is silently dropped when the buffer is full "
        + "(`PeerDelayingDrops`, run just after JMH: of 5000 items added back to back, due "
        + "50 ms later, it " + PEER_DROPS + "). It can hold 1 M pending only when fed "
        + "no faster than its thread inserts; so its caller here (and in the lateness and "
        + "memory figures) waits for room in that buffer, and its insert time includes its "
        + "thread's work up to the last insert.\n\n");

    md.append("## Lateness of delayed items\n\n")
        .append("Delivery time − due time per item, into a log-linear histogram (≤ 1.6% "
            + "error); p50 and p99 per iteration, median over iterations. Sparse: one item "
            + "at a time due 1 ms ahead. 100 k/s: a producer adds items due 1 ms ahead at "
            + "100 k/s, a consumer takes. Saturated: a producer adds items due 100 µs ahead on "
            + "a 1 M/s schedule (≤ 8192 in flight; a slower queue is fed as fast as it takes, "
            + "and its lateness is queueing). Pending: far-future items (1–2 h) in "
            + "the queue besides. `LatenessBenchmark`, `SaturatedLatenessBenchmark`.\n\n")
        .append("![lateness](").append(latenessChartPath).append(")\n\n")
        .append("| scenario | pending | queue | p50 (µs) | p99 (µs) | items/iteration | "
            + "toolkit p50 ÷ this |\n|---|---:|---|---:|---:|---:|---:|\n");
    String[][] scenarios = {
        {"sparse", "LatenessBenchmark.sparse", "0"},
        {"sparse", "LatenessBenchmark.sparse", "1000000"},
        {"100 k/s", "LatenessBenchmark.rate100k", "0"},
        {"100 k/s", "LatenessBenchmark.rate100k", "1000000"},
        {"saturated", "SaturatedLatenessBenchmark.saturated", null}};
    any = false;
    for (String[] sc : scenarios) {
      Optional<Figure> toolkitP50 = latenessFigure(sc[1], "p50_us", "toolkit", sc[2]);
      for (String[] q : DELAYING) {
        Optional<Figure> p50 = latenessFigure(sc[1], "p50_us", q[0], sc[2]);
        if (p50.isEmpty()) {
          continue;
        }
        any = true;
        Optional<Figure> p99 = latenessFigure(sc[1], "p99_us", q[0], sc[2]);
        Optional<Figure> n = latenessFigure(sc[1], "delivered", q[0], sc[2]);
        String r = "toolkit".equals(q[0]) || toolkitP50.isEmpty() ? ""
            : ratio(toolkitP50.get().median() / p50.get().median());
        md.append("| ").append(sc[0]).append(" | ")
            .append(sc[2] == null ? "0" : "0".equals(sc[2]) ? "0" : "1 M").append(" | ")
            .append(q[1]).append(" | ").append(micros(p50)).append(" | ").append(micros(p99))
            .append(" | ").append(n.map(x -> String.format(Locale.ROOT, "%.0f", x.median()))
                .orElse("–"))
            .append(" | ").append(r).append(" |\n");
      }
    }
    if (!any) {
      md.append("| not measured in this run | | | | | | |\n");
    }
    md.append("\nPERF.md, for orientation: DelayQueue p50 30–90 µs, p99 0.06–4.8 ms. The "
        + "peer keeps ready times in whole milliseconds, so it may deliver up to 1 ms early "
        + "(counted as 0 µs late) or late; a peer p50 of 0 µs is that rounding, not speed, "
        + "and makes the peer bar's lateness ratios meaningless where it occurs.\n\n");

    md.append("## Memory per pending delayed item (keys excluded)\n\n")
        .append("JOL retained size of the queue holding 100 k items due 1–2 h ahead, minus the "
            + "empty queue, minus the keys' own `Integer`s, ÷ 100 k; array slack counts. "
            + "`DelayedMemoryBenchmark`.\n\n")
        .append("| queue | bytes per item | toolkit ÷ this |\n|---|---:|---:|\n");
    Optional<Figure> toolkitBytes =
        results.find("DelayedMemoryBenchmark.measure", "bytesPerItem", "toolkit");
    any = false;
    for (String[] q : DELAYING) {
      Optional<Figure> f = results.find("DelayedMemoryBenchmark.measure", "bytesPerItem", q[0]);
      if (f.isEmpty()) {
        continue;
      }
      any = true;
      String r = "toolkit".equals(q[0]) || toolkitBytes.isEmpty() ? ""
          : ratio(toolkitBytes.get().median() / f.get().median());
      md.append("| ").append(q[1]).append(" | ")
          .append(String.format(Locale.ROOT, "%.1f", f.get().median())).append(" | ")
          .append(r).append(" |\n");
    }
    if (!any) {
      md.append("| not measured in this run | | |\n");
    }
    md.append("\nPERF.md, for orientation: DelayQueue 30 B, client-go shape (heap + map) "
        + "81 B.\n\n");
  }

  /** The queues of {@link #delayCostTables}, by their {@code queue} param, in report order. */
  static final List<String[]> DELAY_COST = List.of(DELAYING.get(0),
      new String[] {"toolkit-named", "toolkit `DelayingQueue`, named, live metrics"},
      DELAYING.get(1));

  /**
   * CPU per delivered delayed item, the longest add while 1 M fall due, the first of 1,000 due
   * together: toolkit ÷ DelayQueue of the first column, each figure with its spread.
   */
  private void delayCostTables() {
    String cells = "Cells: median [min–max over iterations]; a ratio flagged \"spreads overlap\" "
        + "is not a verdict on its own (PERF.md): re-run at a quiet moment.";
    md.append("## CPU per delivered delayed item\n\n")
        .append("A producer adds items due 500 µs ahead, their due times 20 µs apart (50 k/s; "
            + "it wakes every 200 µs and adds what its schedule made due); 1 or 4 consumer "
            + "threads take and `done` them. CPU: the process's CPU time (all threads, from "
            + "per-thread `schedstat`) ÷ items delivered in the iteration; context switches: "
            + "the voluntary ones of all threads ÷ items. `DelayedCpuBenchmark`. " + cells
            + "\n\n");
    spreadTable("DelayedCpuBenchmark.produce", "consumers", List.of("1", "4"), List.of(
        new String[] {"CPU (ns/item)", "cpu_ns_per_item", "%.0f"},
        new String[] {"voluntary context switches/item", "vcsw_per_item", "%.3f"},
        new String[] {"items/iteration", "delivered", "%.0f"}));
    md.append("## Longest add while 1 M items fall due at once\n\n")
        .append("1,000,000 items due at the same instant, ~50 ms after the last was added; a "
            + "consumer takes and `done`s them; another thread calls `add` (`DelayQueue.offer` "
            + "of an entry due now) with a fresh key every 10 µs from 2 ms before the due time "
            + "until the consumer has the million, timing each call. One single-shot call per "
            + "iteration. `MassDueAddBenchmark`. " + cells + "\n\n");
    spreadTable("MassDueAddBenchmark.massFallsDue", null, List.of(""), List.of(
        new String[] {"longest add (µs)", "max_add_us", "%.0f"},
        new String[] {"p99.9 add (µs)", "p999_add_us", "%.1f"},
        new String[] {"adds timed/iteration", "adds", "%.0f"}));
    md.append("## Lateness of the first of 1,000 items due together\n\n")
        .append("Rounds of 1,000 items all due 2 ms after the round starts, one consumer waiting "
            + "in `take`; lateness = when the consumer got the round's first item − the due "
            + "time. Percentiles over a 1 s iteration's rounds. "
            + "`FirstOfManyDueBenchmark`. " + cells + "\n\n");
    spreadTable("FirstOfManyDueBenchmark.round", null, List.of(""), List.of(
        new String[] {"first-item lateness p50 (µs)", "first_p50_us", "%.1f"},
        new String[] {"p99 (µs)", "first_p99_us", "%.1f"},
        new String[] {"rounds/iteration", "rounds", "%.0f"}));
  }

  /**
   * One row per {@code param} value (none: {@code param} null) and queue of {@link #DELAY_COST};
   * cells "median [min–max over iterations]"; the last column is toolkit ÷ DelayQueue of the
   * first column's medians, flagged where the two spreads overlap.
   */
  private void spreadTable(String bench, String param, List<String> values,
      List<String[]> columns) {
    StringBuilder head =
        new StringBuilder(param == null ? "| queue |" : "| " + param + " | queue |");
    StringBuilder rule = new StringBuilder(param == null ? "|---|" : "|---:|---|");
    for (String[] c : columns) {
      head.append(' ').append(c[0]).append(" |");
      rule.append("---:|");
    }
    String figure = columns.get(0)[0].replaceAll(" \\(.*", ""); // without its unit
    md.append(head).append(" toolkit ÷ DelayQueue (").append(figure).append(") |\n")
        .append(rule).append("---:|\n");
    boolean any = false;
    for (String v : values) {
      String[] p = param == null ? new String[0] : new String[] {param, v};
      for (String[] q : DELAY_COST) {
        Optional<Figure> first = delayFigure(bench, columns.get(0)[1], q[0], p);
        if (first.isEmpty()) {
          continue;
        }
        any = true;
        md.append(param == null ? "| " : "| " + v + " | ").append(q[1]).append(" |");
        for (String[] c : columns) {
          md.append(' ').append(delayFigure(bench, c[1], q[0], p)
              .map(f -> spread(f, c[2])).orElse("–")).append(" |");
        }
        Optional<Figure> base = delayFigure(bench, columns.get(0)[1], "delayqueue", p);
        md.append(' ').append(q[0].equals("delayqueue") || base.isEmpty() ? ""
            : vsBaseline(first.get(), base.get())).append(" |\n");
      }
    }
    if (!any) {
      md.append("| not measured in this run |\n");
    }
    md.append('\n');
  }

  private Optional<Figure> delayFigure(String bench, String metric, String queue,
      String... params) {
    String[] all = java.util.Arrays.copyOf(params, params.length + 2);
    all[params.length] = "queue";
    all[params.length + 1] = queue;
    return results.where(bench, metric, all);
  }

  /** "median [min–max]" over the figure's iterations. */
  static String spread(Figure f, String format) {
    return String.format(Locale.ROOT, format + " [" + format + "–" + format + "]", f.median(),
        f.min(), f.max());
  }

  /** {@code a ÷ b} of the medians, with a warning when the spreads overlap. */
  static String vsBaseline(Figure a, Figure b) {
    return ratio(a.median() / b.median()) + (a.overlaps(b) ? " (spreads overlap)" : "");
  }

  /** What the peer delivered of 5000 back-to-back addAfters ({@code PeerDelayingDrops}). */
  private static final String PEER_DROPS =
      System.getProperty("report.peerDrops", "").isBlank() ? "was not run"
          : System.getProperty("report.peerDrops").trim();

  private Optional<Figure> latenessFigure(String bench, String metric, String queue,
      String pending) {
    return latenessFigure(results, bench, metric, queue, pending);
  }

  /**
   * A lateness figure ({@code p50_us}, {@code p99_us}, {@code delivered}) of one queue; with
   * {@code pending} null, whatever {@code pending} param the benchmark has (none).
   */
  static Optional<Figure> latenessFigure(JmhResults results, String bench, String metric,
      String queue, String pending) {
    return results.figures.stream()
        .filter(f -> f.bench().equals(bench) && f.metric().endsWith(metric)
            && queue.equals(f.params().get("queue"))
            && (pending == null || pending.equals(f.params().get("pending"))))
        .findFirst();
  }

  private static String micros(Optional<Figure> f) {
    return f.map(x -> String.format(Locale.ROOT, "%.1f", x.median())).orElse("–");
  }

  /**
   * The priority queue beside {@code PriorityBlockingQueue}, same run: one row per scenario and
   * resident count, with the toolkit ÷ PBQ ratio of the times and both allocations.
   */
  private void priorityTable() {
    md.append("## Priority queue\n\n")
        .append("Five priority levels drawn at random per add; `resident` items stay queued. "
            + "One thread: take the next item, `done`, add it back at a fresh priority (PBQ: "
            + "poll, offer). Two threads: each adds a key of its own, then takes one item "
            + "without waiting and `done`s it (PBQ: offer, poll; its FIFO sequence number is a "
            + "shared `AtomicLong`). PBQ entries are (key, priority, sequence) records: no "
            + "de-duplication, no processing set, no delays. `PriorityQueueBenchmark`.\n\n")
        .append("| scenario | resident | toolkit `PriorityWorkQueue` (ns/op) | "
            + "`PriorityBlockingQueue` (ns/op) | toolkit ÷ PBQ | alloc toolkit / PBQ (B/op) |\n")
        .append("|---|---:|---:|---:|---:|---:|\n");
    String b = "PriorityQueueBenchmark.";
    String[][] scenarios = {
        {"add + get + done, 1 thread", "toolkitAddGetDone_1t", "pbqPollOffer_1t"},
        {"add + poll + done, 2 threads", "toolkitAddPollDone_2t", "pbqOfferPoll_2t"}};
    boolean any = false;
    for (String[] sc : scenarios) {
      for (String n : List.of("1", "1000")) {
        Optional<Figure> t = results.findParam(b + sc[1], "", "resident", n);
        Optional<Figure> q = results.findParam(b + sc[2], "", "resident", n);
        if (t.isEmpty() && q.isEmpty()) {
          continue;
        }
        any = true;
        Optional<Figure> ta = results.findParam(b + sc[1], "gc.alloc.rate.norm", "resident", n);
        Optional<Figure> qa = results.findParam(b + sc[2], "gc.alloc.rate.norm", "resident", n);
        String ratio = t.isPresent() && q.isPresent()
            ? ratio(t.get().median() / q.get().median()) : "–";
        String alloc = ta.isEmpty() && qa.isEmpty() ? "–"
            : ta.map(x -> Unit.BYTES.show(x.median())).orElse("–") + " / "
                + qa.map(x -> Unit.BYTES.show(x.median())).orElse("–");
        md.append("| ").append(sc[0]).append(" | ").append(n).append(" | ")
            .append(t.map(x -> withError(x, Unit.NS)).orElse("–")).append(" | ")
            .append(q.map(x -> withError(x, Unit.NS)).orElse("–")).append(" | ")
            .append(ratio).append(" | ").append(alloc).append(" |\n");
      }
    }
    if (!any) {
      md.append("| not measured in this run | | | | | |\n");
    }
    md.append('\n');
  }

  /** Baselines measured now for toolkit parts that do not exist yet. */
  private void baselineTable() {
    md.append("## Limiters, scheduling queue and their baselines\n\n");
    md.append("| baseline | figure | PERF.md figure |\n|---|---:|---:|\n");
    baselineRow("`ConcurrentHashMap.compute` counter, 1 thread",
        "PerItemCounterBenchmark.chmCompute_1t", null, null, "68 ns");
    baselineRow("`ConcurrentHashMap.compute` counter, 2 threads",
        "PerItemCounterBenchmark.chmCompute_2t", null, null, "133 ns");
    baselineRow("`HashMap` counter under one lock, 1 thread",
        "PerItemCounterBenchmark.lockedHashMap_1t", null, null, "");
    baselineRow("`HashMap` counter under one lock, 2 threads",
        "PerItemCounterBenchmark.lockedHashMap_2t", null, null, "");
    baselineRow("Guava `RateLimiter.tryAcquire`, 1 thread",
        "TokenBucketBenchmark.guavaTryAcquire_1t", null, null, "109 ns");
    baselineRow("Guava `RateLimiter.tryAcquire`, 2 threads",
        "TokenBucketBenchmark.guavaTryAcquire_2t", null, null, "405 ns");
    for (String n : List.of("1000", "100000")) {
      String k = n.equals("1000") ? "1 k" : "100 k";
      baselineRow("`PriorityQueue` push+pop, " + k + " resident",
          "ActiveQueueBenchmark.priorityQueuePushPop", "resident", n, "");
      baselineRow("`PriorityBlockingQueue` push+pop, " + k + " resident",
          "ActiveQueueBenchmark.priorityBlockingQueuePushPop", "resident", n, "");
      baselineRow("toolkit `KeyedHeap` (activeQ) push+pop, " + k + " resident",
          "ActiveQueueBenchmark.keyedHeapPushPop", "resident", n, "");
      baselineRow("toolkit `SchedulingQueue` add+pop+done, " + k + " resident",
          "ActiveQueueBenchmark.schedulingQueueAddPopDone", "resident", n, "");
    }
    baselineRow("toolkit: one event over 5,000 pooled items (µs), no index",
        "SchedulingEventBenchmark.nodeAddOver5000Pooled", "indexed", "false", "");
    baselineRow("toolkit: one event over 5,000 pooled items (µs), event index",
        "SchedulingEventBenchmark.nodeAddOver5000Pooled", "indexed", "true", "");
    String c = "PerItemCounterBenchmark.";
    for (String t : List.of("1t", "2t")) {
      String threads = t.equals("1t") ? "1 thread" : "2 threads";
      baselineRow("toolkit exponential `when`, " + threads, c + "toolkitWhen_" + t, null, null, "");
      baselineRow("toolkit exponential `when`, bounded (Caffeine), " + threads,
          c + "toolkitBoundedWhen_" + t, null, null, "");
      baselineRow("peer `ItemExponentialFailureRateLimiter.when`, " + threads,
          c + "peerWhen_" + t, null, null, "");
      baselineRow("toolkit token bucket `when`, " + threads,
          "TokenBucketBenchmark.toolkitWhen_" + t, null, null, "");
      baselineRow("peer `BucketRateLimiter.when` (bucket4j), " + threads,
          "TokenBucketBenchmark.peerWhen_" + t, null, null, "");
    }
    md.append('\n');
  }

  private void baselineRow(String label, String bench, String param, String value,
      String perf) {
    Optional<Figure> f = param == null
        ? results.find(bench, "", null) : results.findParam(bench, "", param, value);
    Optional<Figure> alloc = bench.startsWith("DelayedInsertBenchmark.") ? Optional.empty()
        : param == null
        ? results.find(bench, "gc.alloc.rate.norm", null)
        : results.findParam(bench, "gc.alloc.rate.norm", param, value);
    String shown = f.map(x -> withError(x, Unit.NS) + " ns/op"
        + alloc.map(a -> ", " + Unit.BYTES.show(a.median()) + " B/op").orElse(""))
        .orElse("not measured in this run");
    md.append("| ").append(label).append(" | ").append(shown).append(" | ").append(perf)
        .append(" |\n");
  }

  static String withError(Figure f, Unit unit) {
    String v = unit.show(f.median());
    if (unit == Unit.BYTES || Double.isNaN(f.error())) {
      return v;
    }
    return v + " ± " + unit.show(f.error());
  }

  static String ratio(double r) {
    return Double.isNaN(r) || Double.isInfinite(r)
        ? "n/a" : String.format(Locale.ROOT, "%.2f×", r);
  }

  /** Machine facts, read where the report is generated (run.sh does so right after JMH). */
  static final class Machine {
    private Machine() {}

    static String describe() {
      String model = "unknown CPU";
      try {
        List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
        for (String line : lines) {
          if (line.startsWith("model name")) {
            model = line.substring(line.indexOf(':') + 1).trim();
            break;
          }
        }
      } catch (IOException | RuntimeException e) {
        // not Linux: leave "unknown CPU"
      }
      List<String> parts = new ArrayList<>();
      parts.add(Runtime.getRuntime().availableProcessors() + " cores (nproc)");
      parts.add(model);
      parts.add(System.getProperty("os.name") + " " + System.getProperty("os.arch"));
      return String.join(", ", parts);
    }
  }
}
