package dev.workqueue.benchmarks.report;

import static dev.workqueue.benchmarks.report.ResultsReport.fmt;
import static dev.workqueue.benchmarks.report.ResultsReport.ratio;
import static dev.workqueue.benchmarks.report.ResultsReport.row;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bars of PERF.md, judged on one run: toolkit ÷ baseline from the same run against a "must"
 * and an "aim", whose text ("≤ 1.5× DelayQueue") is also the threshold. {@link #BARS} lists them
 * in report order: most are {@link RatioBar}s or {@link DelayBar}s, a few a row of their own.
 */
final class Bars {
  /** One row of the bars table. */
  interface Bar {
    String judge(JmhResults r);
  }

  /**
   * toolkit ÷ baseline, the worse over {@code refs}: figure refs with "%s" where the toolkit's or
   * the baseline's name goes. {@code label} follows the ratio in the row.
   */
  record Ratio(String label, String toolkit, String baseline, String... refs) {
    Optional<Double> of(JmhResults r, boolean higherIsBetter) {
      return Arrays.stream(refs)
          .flatMap(ref -> r.ratio(ref.formatted(toolkit), ref.formatted(baseline)).stream())
          .reduce(higherIsBetter ? Math::min : Math::max);
    }

    /**
     * " (spreads overlap)" if, for a ref, the toolkit's and the baseline's spreads (min–max over
     * iterations) overlap: then the ratio alone is not a verdict (PERF.md); else "".
     */
    String overlapFlag(JmhResults r) {
      boolean any = Arrays.stream(refs).anyMatch(ref -> r.fig(ref.formatted(toolkit))
          .flatMap(t -> r.fig(ref.formatted(baseline)).map(t::overlaps)).orElse(false));
      return any ? " (spreads overlap)" : "";
    }
  }

  /**
   * A bar on ratios; {@code aimRatio} null: the aim is judged on the must's ratio, or there is no
   * aim ({@code aim} ""). {@code zeroAlloc}: an allocation figure the must also wants at 0 B/op.
   */
  record RatioBar(String what, String must, String aim, Ratio mustRatio, Ratio aimRatio,
      String zeroAlloc) implements Bar {
    @Override
    public String judge(JmhResults r) {
      boolean up = must.startsWith("≥");
      Optional<Double> m = mustRatio.of(r, up);
      Optional<Double> a = aimRatio == null ? m : aimRatio.of(r, up);
      if (m.isEmpty() && a.isEmpty()) {
        return absent(what, must, aim);
      }
      List<String> measured = new ArrayList<>();
      m.ifPresent(x -> measured.add(ratio(x) + " " + mustRatio.label + mustRatio.overlapFlag(r)));
      Optional<Figure> alloc = zeroAlloc == null ? Optional.empty() : r.fig(zeroAlloc);
      if (zeroAlloc != null) { // JMH's allocation per op is off by a fraction of a byte: round
        measured.add(alloc.map(x -> fmt("%.2f B/op", x.median()))
            .orElse("alloc not measured (run with -prof gc)"));
      }
      if (aimRatio != null) {
        a.ifPresent(x -> measured.add(ratio(x) + " " + aimRatio.label + aimRatio.overlapFlag(r)));
      }
      return row(what, must, aim, String.join(", ", measured),
          zeroAlloc == null ? verdict(m, must) : alloc.isEmpty() ? "not measured"
              : Math.round(alloc.get().median()) != 0 ? "**missed**" : verdict(m, must),
          aim.isEmpty() ? "" : verdict(a, aim));
    }
  }

  /**
   * A bar on the worst of several toolkit ÷ DelayQueue ratios of one figure, each case "label
   * |params"; a case whose spreads (min–max over iterations) overlap is flagged: that ratio alone
   * is not a verdict.
   */
  record DelayBar(String what, String must, String aim, String ref, String... cases)
      implements Bar {
    @Override
    public String judge(JmhResults r) {
      List<String> parts = new ArrayList<>();
      Optional<Double> worst = Optional.empty();
      for (String c : cases) {
        String[] lp = c.split("\\|");
        Optional<Figure> t = r.fig(ref + " " + lp[1]);
        String dq = lp[1].replaceFirst("queue=\\S+", "queue=delayqueue");
        Optional<Figure> d = r.fig(ref + " " + dq);
        if (t.isPresent() && d.isPresent()) {
          double x = t.get().median() / d.get().median();
          worst = Optional.of(worst.isEmpty() ? x : Math.max(worst.get(), x));
          parts.add(lp[0] + ResultsReport.vsBaseline(t.get(), d.get()));
        }
      }
      String measured = "toolkit ÷ DelayQueue: " + String.join("; ", parts)
          + partial(parts.size(), cases.length);
      return parts.isEmpty() ? absent(what, must, aim)
          : row(what, must, aim, measured, verdict(worst, must), verdict(worst, aim));
    }
  }

  private static final String[] ACTIVE_Q = {"ActiveQueueBenchmark.%sPushPop resident=1000",
      "ActiveQueueBenchmark.%sPushPop resident=100000"};

  static final List<Bar> BARS = List.of(
      handOff("1P+1C", "p1c1"),
      handOff("2P+2C", "p2c2"),
      new RatioBar("add+get+done, one thread", "≤ 1.0× naive time", "≤ 2× ABQ offer+poll",
          queue("÷ naive", "naive", "OneThreadBenchmark.addGetDone"),
          queue("÷ ABQ", "abq", "OneThreadBenchmark.addGetDone"), null),
      new RatioBar("dedup-hit add", "≤ 1.0× naive, 0 B allocated", "",
          queue("÷ naive", "naive", "DedupHitBenchmark.addQueued"), null,
          "DedupHitBenchmark.addQueued:gc.alloc.rate.norm queue=toolkit"),
      new RatioBar("add storm: consumer rate", "≥ 1.0× naive", "≥ 1.5× naive",
          queue("÷ naive", "naive", "AddStormBenchmark.storm:storm_consume"), null, null),
      new RatioBar("addAfter with 1 M pending", "≤ 1.5× DelayQueue.offer",
          "≤ 1.0× PriorityQueue.offer", new Ratio("÷ DelayQueue", "toolkitAddAfter",
              "delayQueueOffer", "DelayedInsertBenchmark.%s"), new Ratio("÷ PriorityQueue",
              "toolkitAddAfter", "priorityQueueOffer", "DelayedInsertBenchmark.%s"), null),
      Bars::lateness,
      new ModeBar(new RatioBar("lateness under saturation (1 M/s due) p50", "≤ 1.0× DelayQueue",
          "≤ 0.5× DelayQueue", queue("÷ DelayQueue", "delayqueue",
              "SaturatedLatenessBenchmark.saturated:p50_us"), null, null),
          "SaturatedLatenessBenchmark.saturated:p50_us"),
      new DelayBar("CPU per delivered delayed item, 1 and 4 consumers, named and unnamed (process "
          + "CPU time)", "≤ 1.1× DelayQueue", "≤ 1.0× DelayQueue",
          "DelayedCpuBenchmark.produce:cpu_ns_per_item",
          "unnamed, 1 consumer |queue=toolkit consumers=1",
          "named, 1 consumer |queue=toolkit-named consumers=1",
          "unnamed, 4 consumers |queue=toolkit consumers=4",
          "named, 4 consumers |queue=toolkit-named consumers=4"),
      new DelayBar("longest `add` on another thread while 1 M items fall due at once",
          "≤ 2× DelayQueue", "≤ 1.0× DelayQueue",
          "MassDueAddBenchmark.massFallsDue:max_add_us", "|queue=toolkit"),
      new DelayBar("lateness of the first of 1,000 items due together (p50)",
          "≤ 1.5× DelayQueue", "≤ 1.0× DelayQueue",
          "FirstOfManyDueBenchmark.round:first_p50_us", "|queue=toolkit"),
      Bars::memory,
      new RatioBar("per-item limiter `when` (exponential; worse of 1 and 2 threads)",
          "≤ 1.0× HashMap under one lock", "≤ 1.2× CHM.compute",
          new Ratio("÷ locked HashMap", "toolkitWhen", "lockedHashMap",
              "PerItemCounterBenchmark.%s_1t", "PerItemCounterBenchmark.%s_2t"),
          new Ratio("÷ CHM.compute", "toolkitWhen", "chmCompute",
              "PerItemCounterBenchmark.%s_1t", "PerItemCounterBenchmark.%s_2t"), null),
      new RatioBar("token bucket `when` (worse of 1 and 2 threads)",
          "≤ 1.0× Guava tryAcquire, 0 B/op", "≤ 0.5× at 2 threads",
          new Ratio("÷ Guava", "toolkitWhen", "guavaTryAcquire", "TokenBucketBenchmark.%s_1t",
              "TokenBucketBenchmark.%s_2t"), new Ratio("÷ Guava at 2 threads", "toolkitWhen",
              "guavaTryAcquire", "TokenBucketBenchmark.%s_2t"),
          "TokenBucketBenchmark.toolkitWhen_1t:gc.alloc.rate.norm"),
      new RatioBar("scheduling activeQ (`KeyedHeap`) push+pop, worse of 1 k and 100 k resident",
          "≤ 1.5× PriorityBlockingQueue", "≤ 1.0× PriorityQueue",
          new Ratio("÷ PBQ", "keyedHeap", "priorityBlockingQueue", ACTIVE_Q),
          new Ratio("÷ PQ", "keyedHeap", "priorityQueue", ACTIVE_Q), null),
      Bars::peer,
      Bars::idleThreads,
      Bars::controller);

  private final JmhResults r;

  Bars(JmhResults r) {
    this.r = r;
  }

  /** The table's body rows. */
  String rows() {
    return String.join("\n", BARS.stream().map(b -> b.judge(r)).toList());
  }

  private static Bar handOff(String name, String bench) {
    String ref = ResultsReport.handOff(bench);
    RatioBar overall = new RatioBar("work queue hand-off, " + name, "≥ 1.0× naive",
        "≥ 1.0× LBQ", queue("÷ naive", "naive", ref), queue("÷ LBQ", "lbq", ref), null);
    return new ModeBar(overall, ref);
  }

  /**
   * A {@link RatioBar} on a cross-core figure with a {@code queue} param, judged within each host
   * mode the run saw (the iterations {@code HostModeProfiler} tagged near or far; {@link
   * JmhResults}): the toolkit and the baseline are compared only with each other's iterations in
   * the same mode, and the worst mode with at least {@value #MIN_MODE_ITERATIONS} iterations of
   * each decides: a miss there is a miss, but a hold is "undecided" if the toolkit also ran that
   * many iterations in a mode its baseline hardly ran in. Without the tags, the plain bar.
   * {@code ref} names the figure without its {@code queue} param; other params may follow the
   * metric ("HandOffBenchmark.p1c1:p1c1_consume keys=spread").
   */
  record ModeBar(RatioBar overall, String ref) implements Bar {
    static final int MIN_MODE_ITERATIONS = 5;

    @Override
    public String judge(JmhResults r) {
      if (r.fig(inMode(JmhResults.NEAR) + " queue=toolkit").isEmpty()
          && r.fig(inMode(JmhResults.FAR) + " queue=toolkit").isEmpty()) {
        return overall.judge(r);
      }
      boolean up = overall.must().startsWith("≥");
      Modes must = modes(r, overall.mustRatio().baseline(), up);
      if (overall.aimRatio() == null) { // the aim is judged on the must's ratios, if any
        String aim = overall.aim().isEmpty() ? "" : must.verdict(overall.aim());
        return row(overall.what(), overall.must(), overall.aim(), must.text(),
            must.verdict(overall.must()), aim);
      }
      Modes aim = modes(r, overall.aimRatio().baseline(), up);
      return row(overall.what(), overall.must(), overall.aim(), must.text() + "; " + aim.text(),
          must.verdict(overall.must()), aim.verdict(overall.aim()));
    }

    /**
     * toolkit ÷ one baseline in each mode: the measured text, the worst judged ratio, and the
     * modes the toolkit ran enough iterations in that could not be judged.
     */
    private record Modes(String text, Optional<Double> worst, List<String> notJudged) {
      /** A judged miss decides; a hold is a hold only if no mode the toolkit ran in is unjudged. */
      String verdict(String bar) {
        if (worst.isEmpty()) {
          return "not judged (too few iterations in any mode)";
        }
        String v = Bars.verdict(worst, bar);
        if (notJudged.isEmpty()) {
          return v;
        }
        String unjudged = " (" + String.join(" and ", notJudged) + " mode not judged)";
        return v.contains("missed") ? v + unjudged : "undecided" + unjudged;
      }
    }

    /** {@link #ref} with its metric (the first word) narrowed to one host mode's iterations. */
    private String inMode(String mode) {
      int end = (ref + " ").indexOf(' ');
      return ref.substring(0, end) + mode + ref.substring(end);
    }

    private Modes modes(JmhResults r, String baseline, boolean up) {
      List<String> parts = new ArrayList<>();
      List<String> notJudged = new ArrayList<>();
      Optional<Double> worst = Optional.empty();
      for (String[] mode : new String[][] {{"near", JmhResults.NEAR}, {"far", JmhResults.FAR}}) {
        Optional<Figure> t = r.fig(inMode(mode[1]) + " queue=toolkit");
        Optional<Figure> b = r.fig(inMode(mode[1]) + " queue=" + baseline);
        boolean toolkitRanHere = t.isPresent() && t.get().iterations() >= MIN_MODE_ITERATIONS;
        if (t.isEmpty() || b.isEmpty()) {
          parts.add(mode[0] + ": " + (t.isEmpty() ? "no toolkit" : "no " + baseline)
              + " iteration");
        } else {
          double x = t.get().median() / b.get().median();
          boolean judged = toolkitRanHere && b.get().iterations() >= MIN_MODE_ITERATIONS;
          parts.add(fmt("%s: %s ÷ %s%s (%d and %d iterations%s)", mode[0], ratio(x), baseline,
              t.get().overlaps(b.get()) ? ", spreads overlap" : "", t.get().iterations(),
              b.get().iterations(), judged ? "" : ", too few to judge"));
          if (judged) {
            worst = Optional.of(worst.map(w -> up ? Math.min(w, x) : Math.max(w, x)).orElse(x));
            continue;
          }
        }
        if (toolkitRanHere) {
          notJudged.add(mode[0]); // the toolkit ran in this mode, its baseline hardly did
        }
      }
      String all = r.ratio(ref + " queue=toolkit", ref + " queue=" + baseline)
          .map(x -> "all iterations " + ratio(x) + " ÷ " + baseline + ", ").orElse("");
      return new Modes(all + String.join(", ", parts), worst, notJudged);
    }
  }

  /** toolkit ÷ {@code baseline} of a figure with a {@code queue} param. */
  private static Ratio queue(String label, String baseline, String ref) {
    return new Ratio(label, "toolkit", baseline, ref + " queue=%s");
  }

  /**
   * The four lateness p50 cases (sparse and 100 k/s, 0 and 1 M pending): must is toolkit ≤
   * DelayQueue + 50 µs in each, aim toolkit ≤ 1.2× DelayQueue in each.
   */
  private static String lateness(JmhResults r) {
    String what = "lateness p50 (sparse, 100 k/s due; 0 and 1 M pending)";
    String must = "≤ DelayQueue p50 + 50 µs";
    String aim = "≤ 1.2× DelayQueue p50";
    List<String> parts = new ArrayList<>();
    boolean mustHeld = true;
    boolean aimHeld = true;
    for (String[] sc : Arrays.copyOf(ResultsReport.LATENESS, 4)) {
      Optional<Figure> t = r.fig(sc[2] + ":p50_us queue=toolkit" + sc[3]);
      Optional<Figure> d = r.fig(sc[2] + ":p50_us queue=delayqueue" + sc[3]);
      if (t.isPresent() && d.isPresent()) {
        double tv = t.get().median();
        double dv = d.get().median();
        mustHeld &= tv <= dv + 50;
        aimHeld &= tv / dv <= 1.2;
        parts.add(fmt("%s, %s pending: %.1f − %.1f µs = %+.1f µs, %s", sc[0],
            sc[3].endsWith("000000") ? "1 M" : "0", tv, dv, tv - dv, ratio(tv / dv)));
      }
    }
    String partial = partial(parts.size(), 4);
    String soFar = partial.isEmpty() ? "" : " so far";
    return parts.isEmpty() ? absent(what, must, aim) : row(what, must, aim,
        "toolkit − / ÷ DelayQueue: " + String.join("; ", parts) + partial,
        (mustHeld ? "held" : "**missed**") + soFar, (aimHeld ? "held" : "**missed**") + soFar);
  }

  private static String memory(JmhResults r) {
    String what = "memory per pending delayed item (keys excluded)";
    return r.fig("DelayedMemoryBenchmark.measure:bytesPerItem queue=toolkit")
        .map(f -> row(what, "≤ 81 B", "≤ 40 B", fmt("%.1f B", f.median()),
            f.median() <= 81 ? "held" : "**missed**", f.median() <= 40 ? "held" : "**missed**"))
        .orElse(absent(what, "≤ 81 B", "≤ 40 B"));
  }

  /** Every toolkit figure with a peer figure beside it: label, figure ref, "up" if a rate. */
  private static final String[][] PEER = {
      {"hand-off 1P+1C", ResultsReport.handOff("p1c1") + " queue=%s", "up"},
      {"hand-off 2P+2C", ResultsReport.handOff("p2c2") + " queue=%s", "up"},
      {"one thread", "OneThreadBenchmark.addGetDone queue=%s", ""},
      {"dedup hit", "DedupHitBenchmark.addQueued queue=%s", ""},
      {"add storm", "AddStormBenchmark.storm:storm_consume queue=%s", "up"},
      {"lateness p50 sparse", "LatenessBenchmark.sparse:p50_us queue=%s pending=0", ""},
      {"lateness p50 100 k/s", "LatenessBenchmark.rate100k:p50_us queue=%s pending=0", ""},
      {"lateness p50 saturated", "SaturatedLatenessBenchmark.saturated:p50_us queue=%s", ""},
      {"bytes per delayed item", "DelayedMemoryBenchmark.measure:bytesPerItem queue=%s", ""},
      {"exponential 1 thread", "PerItemCounterBenchmark.%sWhen_1t", ""},
      {"exponential 2 threads", "PerItemCounterBenchmark.%sWhen_2t", ""},
      {"bucket 1 thread", "TokenBucketBenchmark.%sWhen_1t", ""},
      {"bucket 2 threads", "TokenBucketBenchmark.%sWhen_2t", ""},
      {"addAfter, 1 M pending", "DelayedInsertBenchmark.%sAddAfter", ""}};

  /** The speed-up (more: toolkit faster) of each figure in {@link #PEER}; the worst decides. */
  private static String peer(JmhResults r) {
    double worst = Double.POSITIVE_INFINITY;
    List<String> parts = new ArrayList<>();
    for (String[] f : PEER) {
      Optional<Double> x = r.ratio(f[1].formatted("toolkit"), f[1].formatted("peer"));
      if (x.isPresent() && f[1].contains(":p50_us") && x.get().isInfinite()) {
        // The peer rounds ready times to whole ms and delivers up to 1 ms early: a p50 of
        // 0 µs late is that rounding, not a speed to compare against.
        parts.add(f[0] + " n/a (peer p50 0 µs: early delivery from ms rounding)");
      } else if (x.isPresent()) {
        double speedup = f[2].equals("up") ? x.get() : 1 / x.get();
        worst = Math.min(worst, speedup);
        parts.add(f[0] + " " + ratio(speedup));
      }
    }
    String what = "every toolkit figure vs the Java peer (speed-up; the worst decides)";
    String must = "faster than client-java-extended";
    return parts.isEmpty() ? absent(what, must, "≥ 2×") : row(what, must, "≥ 2×",
        String.join(", ", parts), worst > 1.0 ? "held" : "**missed**",
        verdict(Optional.of(worst), "≥ 2×"));
  }

  private static final Pattern IDLE =
      Pattern.compile("used then idle (-?\\d+), holding a 1 h item (-?\\d+)");

  /** The {@code IdleThreads} probe's line, run by run.sh after JMH: "toolkit … N; peer … M". */
  private static String idleThreads(JmhResults r) {
    String what = "threads owned by 1000 idle delaying queues";
    String line = System.getProperty("report.idleThreads", "").trim();
    Matcher m = IDLE.matcher(line);
    if (!m.find()) {
      return row(what, "0", "0", line.isEmpty() ? "`IdleThreads` was not run" : line,
          "not measured yet", "not measured yet");
    }
    // Only "no more than before" can be judged: a JVM thread exiting meanwhile makes it < 0.
    String verdict = Integer.parseInt(m.group(1)) <= 0 ? "held" : "**missed**";
    return row(what, "0", "0", "`IdleThreads`: " + line + " (threads alive minus before; queues "
        + "without metrics arm no wake-up for the 1 h items)", verdict, verdict);
  }

  /**
   * The controller bar: toolkit ÷ the peer's controller (must) and ÷ a plain thread pool (aim) in
   * reconciles/s at each worker count; the worst count decides. Each case also shows the range
   * of the ratio between the extremes of the two spreads (toolkit min ÷ baseline max to toolkit
   * max ÷ baseline min), flagged where it spans the bar's threshold: that case is no verdict.
   */
  private static String controller(JmhResults r) {
    String what = "controller end-to-end: reconciles/s, no-op reconciler, 1/2/4 workers";
    String must = "≥ 1.5× client-java-extended's controller";
    String aim = "≥ 0.8× a plain ExecutorService";
    List<String> mustParts = new ArrayList<>();
    List<String> aimParts = new ArrayList<>();
    Optional<Double> mustWorst = controllerCases(r, "peer", must, mustParts);
    Optional<Double> aimWorst = controllerCases(r, "executor", aim, aimParts);
    if (mustParts.isEmpty() && aimParts.isEmpty()) {
      return absent(what, must, aim);
    }
    int of = ResultsReport.CONTROLLER_WORKERS.size();
    return row(what, must, aim, "toolkit ÷ peer: " + String.join("; ", mustParts)
        + partial(mustParts.size(), of) + "; toolkit ÷ executor: " + String.join("; ", aimParts)
        + partial(aimParts.size(), of), verdict(mustWorst, must), verdict(aimWorst, aim));
  }

  /** Adds a case per worker count to {@code parts}; returns the worst (lowest) ratio. */
  private static Optional<Double> controllerCases(JmhResults r, String baseline, String bar,
      List<String> parts) {
    Matcher m = THRESHOLD.matcher(bar);
    if (!m.find()) {
      throw new IllegalArgumentException("no threshold in " + bar);
    }
    double threshold = Double.parseDouble(m.group(2));
    Optional<Double> worst = Optional.empty();
    for (String w : ResultsReport.CONTROLLER_WORKERS) {
      Optional<Figure> t = r.fig(ResultsReport.CONTROLLER_REF.formatted("", "toolkit", w));
      Optional<Figure> b = r.fig(ResultsReport.CONTROLLER_REF.formatted("", baseline, w));
      if (t.isPresent() && b.isPresent()) {
        double x = t.get().median() / b.get().median();
        double lo = t.get().min() / b.get().max();
        double hi = t.get().max() / b.get().min();
        worst = Optional.of(worst.isEmpty() ? x : Math.min(worst.get(), x));
        parts.add(fmt("%s worker%s %s [%.2f–%.2f]%s", w, w.equals("1") ? "" : "s", ratio(x), lo,
            hi, lo < threshold && threshold < hi ? " (spans " + m.group(2) + "×)" : ""));
      }
    }
    return worst;
  }

  private static final Pattern THRESHOLD = Pattern.compile("([≤≥]) ([\\d.]+)×");

  /** Held or missed, by {@code bar}'s text: "≥ 1.0× naive", "≤ 2× ABQ". */
  private static String verdict(Optional<Double> r, String bar) {
    Matcher m = THRESHOLD.matcher(bar);
    if (!m.find()) {
      throw new IllegalArgumentException("no threshold in " + bar);
    }
    if (r.isEmpty() || r.get().isNaN()) {
      return "not measured";
    }
    double x = Double.parseDouble(m.group(2));
    return (m.group(1).equals("≥") ? r.get() >= x : r.get() <= x) ? "held" : "**missed**";
  }

  private static String partial(int cases, int of) {
    return cases < of ? " (" + cases + " of " + of + " cases in this run)" : "";
  }

  /** A bar whose figures exist in the harness but were not part of this run. */
  private static String absent(String what, String must, String aim) {
    return row(what, must, aim, "not in this run", "not measured", "not measured");
  }
}
