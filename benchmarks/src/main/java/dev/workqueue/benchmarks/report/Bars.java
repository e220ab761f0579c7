package dev.workqueue.benchmarks.report;

import dev.workqueue.benchmarks.report.JmhResults.Figure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bars of PERF.md, judged on one run: each is toolkit ÷ baseline from the same run, with a
 * "must" and an "aim" threshold. A bar whose toolkit figure does not exist yet says so.
 */
final class Bars {
  private final JmhResults results;
  private final StringBuilder md;
  private final String profile;

  Bars(JmhResults results, StringBuilder md, String profile) {
    this.results = results;
    this.md = md;
    this.profile = profile;
  }

  /** toolkit ÷ baseline of one figure, if both were measured. */
  private Optional<Double> ratio(String bench, String metric, String baselineQueue) {
    Optional<Figure> t = results.find(bench, metric, "toolkit");
    Optional<Figure> b = results.find(bench, metric, baselineQueue);
    if (t.isEmpty() || b.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(t.get().median() / b.get().median());
  }

  void write() {
    md.append("## PERF.md bars\n\n");
    if (!"full".equals(profile)) {
      md.append("Judged on this ").append(profile).append(" run only: indicative, not a "
          + "verdict (PERF.md asks for ≥ 2 forks × 5 × 1 s).\n\n");
    }
    int tableStart = md.length();
    md.append("| what | must | aim | measured (toolkit ÷ baseline) | must | aim |\n");
    md.append("|---|---|---|---|---|---|\n");
    for (String[] v : new String[][] {{"1P+1C", "p1c1"}, {"2P+2C", "p2c2"}}) {
      String bench = "HandOffBenchmark." + v[1];
      String metric = v[1] + "_consume";
      row("work queue hand-off, " + v[0], "≥ 1.0× naive", "≥ 1.0× LBQ",
          ratio(bench, metric, "naive"), true, 1.0, ratio(bench, metric, "lbq"), 1.0,
          "÷ naive", "÷ LBQ");
    }
    row("add+get+done, one thread", "≤ 1.0× naive time", "≤ 2× ABQ offer+poll",
        ratio("OneThreadBenchmark.addGetDone", "", "naive"), false, 1.0,
        ratio("OneThreadBenchmark.addGetDone", "", "abq"), 2.0, "÷ naive", "÷ ABQ");
    dedupRow();
    Optional<Double> storm = ratio("AddStormBenchmark.storm", "storm_consume", "naive");
    row("add storm: consumer rate", "≥ 1.0× naive", "≥ 1.5× naive", storm, true, 1.0, storm,
        1.5, "÷ naive", null);
    addAfterRow();
    latenessRow();
    saturationRow();
    delayRow("CPU per delivered delayed item, 1 and 4 consumers, named and unnamed (process "
            + "CPU time)", "≤ 1.1× DelayQueue", "≤ 1.0× DelayQueue", 1.1, 1.0,
        "DelayedCpuBenchmark.produce", "cpu_ns_per_item", new String[][] {
            {"unnamed, 1 consumer", "toolkit", "consumers", "1"},
            {"named, 1 consumer", "toolkit-named", "consumers", "1"},
            {"unnamed, 4 consumers", "toolkit", "consumers", "4"},
            {"named, 4 consumers", "toolkit-named", "consumers", "4"}});
    delayRow("longest `add` on another thread while 1 M items fall due at once",
        "≤ 2× DelayQueue", "≤ 1.0× DelayQueue", 2.0, 1.0, "MassDueAddBenchmark.massFallsDue",
        "max_add_us", new String[][] {{"", "toolkit"}});
    delayRow("lateness of the first of 1,000 items due together (p50)", "≤ 1.5× DelayQueue",
        "≤ 1.0× DelayQueue", 1.5, 1.0, "FirstOfManyDueBenchmark.round", "first_p50_us",
        new String[][] {{"", "toolkit"}});
    memoryRow();
    limiterRows();
    String a = "ActiveQueueBenchmark.";
    row("scheduling activeQ (`KeyedHeap`) push+pop, worse of 1 k and 100 k resident",
        "≤ 1.5× PriorityBlockingQueue", "≤ 1.0× PriorityQueue",
        worse(residentRatio(a + "keyedHeapPushPop", a + "priorityBlockingQueuePushPop", "1000"),
            residentRatio(a + "keyedHeapPushPop", a + "priorityBlockingQueuePushPop", "100000")),
        false, 1.5,
        worse(residentRatio(a + "keyedHeapPushPop", a + "priorityQueuePushPop", "1000"),
            residentRatio(a + "keyedHeapPushPop", a + "priorityQueuePushPop", "100000")),
        1.0, "÷ PBQ", "÷ PQ");
    peerRow();
    idleThreadsRow();
    md.append('\n');
    limits(md.substring(tableStart));
  }

  /**
   * What limits each bar that can miss, by the start of its "what" cell. Kept beside the bars so
   * that a missed bar in the report always comes with the reason known when it was last
   * measured; a note stays true only as long as the code it describes, so revisit it with the
   * code.
   */
  static final String[][] LIMITS = {
      {"work queue hand-off", "The aim (LinkedBlockingQueue): every hand-off puts an entry "
          + "into a `ConcurrentHashMap` at add and removes it at done (a CAS or a bin lock each) "
          + "and publishes the entry's stamp with an atomic exchange at add and at get, where "
          + "`LinkedBlockingQueue` keeps no per-item state and has a lock per end. The concurrent "
          + "map and the stamp are what let a producer skip the lock when the item is already "
          + "dirty (the dedup-hit and add-storm bars) and still publish its writes. On this shared "
          + "2-core machine the run-to-run error is ±20–40% of these figures, so a ratio within "
          + "0.8–1.2 is not a verdict."},
      {"add+get+done, one thread", "ABQ keeps no per-item state, while a work queue must "
          + "insert, update and remove the item's dedup state and take its lock three times per "
          + "item; the toolkit keeps that state in a `ConcurrentHashMap` (CAS and bin-lock "
          + "writes) where the naive queue uses `HashSet`s under its lock: the price of the "
          + "lock-free dedup hit."},
      {"add storm", "The aim (1.5×): the consumer's get + done still costs two lock round trips "
          + "and the map updates per item; the producers' dedup hits no longer take the lock, "
          + "but they still read the map's cache lines that the consumer writes."},
      {"addAfter with 1 M pending", "Every `addAfter` reads the clock (the benchmark's "
          + "`DelayQueue` entries carry precomputed due times) and looks the item up in the "
          + "heap's index, a hash table: one random cache line per insert, ~40 ns of memory "
          + "throughput at 1 M items on this machine even with the reads of 64 deferred adds "
          + "issued together (a dependent miss costs several hundred ns here). `DelayQueue` and "
          + "`PriorityQueue` only append and compare along a path that stays in cache."},
      {"per-item limiter", "The limiter keeps one counter per item in a `ConcurrentHashMap`: a "
          + "lock-free read and a CAS on the item's own counter, 0 B/op. The locked `HashMap` "
          + "at 1 thread is an uncontended lock around one probe: the same work within a few ns "
          + "(and within the run's error); at 2 threads the toolkit is several times faster."},
      {"token bucket", "The bucket is one CAS on one `long` per call, 0 B/op; Guava's "
          + "`tryAcquire` is a `synchronized` block, cheap while uncontended. Two threads "
          + "retrying a CAS on one line is where the figures swing most with the machine's "
          + "load: compare the error columns and the load average above."},
      {"lateness", "The leader parks until the head's ready time, as DelayQueue's does (it no "
          + "longer spins for the last 20 µs: that cost a core while due times followed each "
          + "other closely, 2.9× DelayQueue's CPU per item), so its lateness is DelayQueue's: "
          + "under saturation p50 is within a few µs of it either way, and a ratio near 1.0 is "
          + "the run's noise, not a verdict. p99 shows the millisecond scheduling spikes of two "
          + "shared cores."},
      {"CPU per delivered delayed item", "Within a few percent of DelayQueue, which is the "
          + "run-to-run spread: the consumers park and wake as DelayQueue's do (one wake-up per "
          + "item at most); a named queue also keeps its metrics (three map operations and two "
          + "clock reads per item) and a backstop wake-up about once per 10 ms while consumers "
          + "are busy."},
      {"longest `add` on another thread", "No add waits for a promotion (the FIFO merges due items "
          + "by time), but each take of a due item pays a heap removal with index updates, ~1 µs "
          + "at a million against ~0.4 µs for `DelayQueue`'s heap (which keeps no index and so "
          + "cannot cancel or merge an item), so the toolkit's window of falling due lasts about "
          + "2.5× longer, and the longest add of a window is a GC pause or a preemption of the "
          + "adder thread more often."},
      {"memory per pending delayed item", "The aim (40 B): per entry the heap keeps its ready "
          + "time, an insertion number, the item, and its index slot with a hash fingerprint, "
          + "plus an index table at most half full and array slack."},
      {"scheduling activeQ", "The active queue is a heap that can also update or delete an item "
          + "by key in O(log n): every push allocates a node that carries its heap index and its "
          + "key's hash, indexed in an open-addressing table of nodes, and the benchmark's key "
          + "function boxes a `Long` per call (88 B/op against 32 for the JDK queues, which can "
          + "only remove by a linear scan); each comparison reads the element through its node, "
          + "one pointer more than `PriorityQueue`, and at 100 k resident those are cache misses."},
      {"every toolkit figure vs the Java peer", "The peer's hand-off and add-storm are one "
          + "`synchronized` queue with no separate dedup map and no metrics hook; where the "
          + "toolkit's figure is within the run's error of the peer's, the ratio is noise. "
          + "See the rows above for the toolkit-side limits of each figure."}};

  /** After the table: for each missed bar, what limits it. */
  private void limits(String table) {
    List<String> notes = new ArrayList<>();
    for (String line : table.split("\n")) {
      if (!line.contains("**missed**")) {
        continue;
      }
      for (String[] limit : LIMITS) {
        String note = "- **" + limit[0] + "**: " + limit[1];
        if (line.startsWith("| " + limit[0]) && !notes.contains(note)) {
          notes.add(note);
        }
      }
    }
    if (!notes.isEmpty()) {
      md.append("### What limits the missed bars\n\n").append(String.join("\n", notes))
          .append("\n\n");
    }
  }

  /** The {@code IdleThreads} probe's line, run by run.sh after JMH: "toolkit … N; peer … M". */
  private void idleThreadsRow() {
    String what = "threads owned by 1000 idle delaying queues";
    String line = System.getProperty("report.idleThreads", "").trim();
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("used then idle (-?\\d+), holding a 1 h item (-?\\d+)").matcher(line);
    if (!m.find()) {
      notYet(what, "0", "0", line.isEmpty() ? "`IdleThreads` was not run" : line);
      return;
    }
    // Thread counts can only be judged as "no more than before": a JVM thread exiting in the
    // meantime makes the difference negative.
    boolean held = Integer.parseInt(m.group(1)) <= 0;
    md.append("| ").append(what).append(" | 0 | 0 | `IdleThreads`: ").append(line)
        .append(" (threads alive minus before; queues without metrics arm no wake-up for the "
            + "1 h items) | ").append(held ? "held" : "**missed**")
        .append(" | ").append(held ? "held" : "**missed**").append(" |\n");
  }

  /** Rows where both thresholds are ratios of measured figures. */
  private void row(String what, String must, String aim, Optional<Double> mustRatio,
      boolean higherIsBetter, double mustBar, Optional<Double> aimRatio, double aimBar,
      String mustLabel, String aimLabel) {
    if (mustRatio.isEmpty() && aimRatio.isEmpty()) {
      absent(what, must, aim);
      return;
    }
    List<String> measured = new ArrayList<>();
    mustRatio.ifPresent(r -> measured.add(ResultsReport.ratio(r) + " " + mustLabel));
    if (aimLabel != null) {
      aimRatio.ifPresent(r -> measured.add(ResultsReport.ratio(r) + " " + aimLabel));
    }
    md.append("| ").append(what).append(" | ").append(must).append(" | ").append(aim)
        .append(" | ").append(String.join(", ", measured)).append(" | ")
        .append(verdict(mustRatio, higherIsBetter, mustBar)).append(" | ")
        .append(verdict(aimRatio, higherIsBetter, aimBar)).append(" |\n");
  }

  private static String verdict(Optional<Double> r, boolean higherIsBetter, double bar) {
    if (r.isEmpty() || r.get().isNaN()) {
      return "not measured";
    }
    boolean held = higherIsBetter ? r.get() >= bar : r.get() <= bar;
    return held ? "held" : "**missed**";
  }

  private void dedupRow() {
    Optional<Double> time = ratio("DedupHitBenchmark.addQueued", "", "naive");
    Optional<Figure> alloc =
        results.find("DedupHitBenchmark.addQueued", "gc.alloc.rate.norm", "toolkit");
    if (time.isEmpty()) {
      absent("dedup-hit add", "≤ 1.0× naive, 0 B allocated", "");
      return;
    }
    // JMH's normalised allocation has noise of a fraction of a byte per op: round it.
    boolean zero = alloc.isPresent() && Math.round(alloc.get().median()) == 0;
    String allocText = alloc.map(a -> String.format(java.util.Locale.ROOT, "%.2f B/op",
        a.median())).orElse("alloc not measured (run with -prof gc)");
    String must = alloc.isEmpty() ? "not measured"
        : (time.get() <= 1.0 && zero) ? "held" : "**missed**";
    md.append("| dedup-hit add | ≤ 1.0× naive, 0 B allocated |  | ")
        .append(ResultsReport.ratio(time.get())).append(" ÷ naive, ").append(allocText)
        .append(" | ").append(must).append(" |  |\n");
  }

  /** {@code a ÷ b} of two primary figures of benchmarks without a queue param. */
  private Optional<Double> ratioOf(String a, String b) {
    Optional<Figure> x = results.find(a, "", null);
    Optional<Figure> y = results.find(b, "", null);
    if (x.isEmpty() || y.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(x.get().median() / y.get().median());
  }

  private Optional<Double> residentRatio(String a, String b, String resident) {
    Optional<Figure> x = results.findParam(a, "", "resident", resident);
    Optional<Figure> y = results.findParam(b, "", "resident", resident);
    if (x.isEmpty() || y.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(x.get().median() / y.get().median());
  }

  /** The larger of two optional ratios (for times: the worse). */
  private static Optional<Double> worse(Optional<Double> a, Optional<Double> b) {
    if (a.isEmpty()) {
      return b;
    }
    return b.isEmpty() ? a : Optional.of(Math.max(a.get(), b.get()));
  }

  private void limiterRows() {
    String c = "PerItemCounterBenchmark.";
    Optional<Double> vsLocked = worse(ratioOf(c + "toolkitWhen_1t", c + "lockedHashMap_1t"),
        ratioOf(c + "toolkitWhen_2t", c + "lockedHashMap_2t"));
    Optional<Double> vsChm = worse(ratioOf(c + "toolkitWhen_1t", c + "chmCompute_1t"),
        ratioOf(c + "toolkitWhen_2t", c + "chmCompute_2t"));
    row("per-item limiter `when` (exponential; worse of 1 and 2 threads)",
        "≤ 1.0× HashMap under one lock", "≤ 1.2× CHM.compute", vsLocked, false, 1.0, vsChm,
        1.2, "÷ locked HashMap", "÷ CHM.compute");
    String t = "TokenBucketBenchmark.";
    Optional<Double> vsGuava = worse(ratioOf(t + "toolkitWhen_1t", t + "guavaTryAcquire_1t"),
        ratioOf(t + "toolkitWhen_2t", t + "guavaTryAcquire_2t"));
    Optional<Double> vsGuava2 = ratioOf(t + "toolkitWhen_2t", t + "guavaTryAcquire_2t");
    Optional<Figure> alloc = results.find(t + "toolkitWhen_1t", "gc.alloc.rate.norm", null);
    boolean zero = alloc.isPresent() && Math.round(alloc.get().median()) == 0;
    String allocText = alloc.map(a -> String.format(java.util.Locale.ROOT, ", %.2f B/op",
        a.median())).orElse(", alloc not measured");
    if (vsGuava.isEmpty()) {
      absent("token bucket `when`", "≤ 1.0× Guava tryAcquire, 0 B/op", "≤ 0.5× at 2 threads");
      return;
    }
    md.append("| token bucket `when` (worse of 1 and 2 threads) | ≤ 1.0× Guava tryAcquire, 0 B/op"
            + " | ≤ 0.5× at 2 threads | ")
        .append(ResultsReport.ratio(vsGuava.get())).append(" ÷ Guava").append(allocText)
        .append(vsGuava2.map(r -> ", " + ResultsReport.ratio(r) + " ÷ Guava at 2 threads")
            .orElse(""))
        .append(" | ").append(alloc.isEmpty() ? "not measured"
            : vsGuava.get() <= 1.0 && zero ? "held" : "**missed**")
        .append(" | ").append(verdict(vsGuava2, false, 0.5)).append(" |\n");
  }

  /** Every toolkit figure that has a peer figure beside it: the worst one decides. */
  private void peerRow() {
    String[][] figures = {
        {"HandOffBenchmark.p1c1", "p1c1_consume", "hand-off 1P+1C", "up"},
        {"HandOffBenchmark.p2c2", "p2c2_consume", "hand-off 2P+2C", "up"},
        {"OneThreadBenchmark.addGetDone", "", "one thread", "down"},
        {"DedupHitBenchmark.addQueued", "", "dedup hit", "down"},
        {"AddStormBenchmark.storm", "storm_consume", "add storm", "up"},
        {"LatenessBenchmark.sparse", "p50_us", "lateness p50 sparse", "down"},
        {"LatenessBenchmark.rate100k", "p50_us", "lateness p50 100 k/s", "down"},
        {"SaturatedLatenessBenchmark.saturated", "p50_us", "lateness p50 saturated", "down"},
        {"DelayedMemoryBenchmark.measure", "bytesPerItem", "bytes per delayed item", "down"}};
    double worst = Double.POSITIVE_INFINITY;
    List<String> parts = new ArrayList<>();
    for (String[] f : figures) {
      Optional<Double> r = f[0].startsWith("LatenessBenchmark.")
          ? pendingRatio(f[0], f[1], "peer", "0") : ratio(f[0], f[1], "peer");
      if (r.isEmpty()) {
        continue;
      }
      if (f[1].equals("p50_us") && r.get().isInfinite()) {
        // The peer rounds ready times to whole ms and delivers up to 1 ms early: a p50 of
        // 0 µs late is that rounding, not a speed to compare against.
        parts.add(f[2] + " n/a (peer p50 0 µs: early delivery from ms rounding)");
        continue;
      }
      double speedup = "up".equals(f[3]) ? r.get() : 1 / r.get(); // > 1: toolkit faster
      worst = Math.min(worst, speedup);
      parts.add(f[2] + " " + ResultsReport.ratio(speedup));
    }
    String[][] limiters = {
        {"PerItemCounterBenchmark.toolkitWhen_1t", "PerItemCounterBenchmark.peerWhen_1t",
            "exponential 1 thread"},
        {"PerItemCounterBenchmark.toolkitWhen_2t", "PerItemCounterBenchmark.peerWhen_2t",
            "exponential 2 threads"},
        {"TokenBucketBenchmark.toolkitWhen_1t", "TokenBucketBenchmark.peerWhen_1t",
            "bucket 1 thread"},
        {"TokenBucketBenchmark.toolkitWhen_2t", "TokenBucketBenchmark.peerWhen_2t",
            "bucket 2 threads"}};
    for (String[] f : limiters) {
      Optional<Double> r = ratioOf(f[0], f[1]); // times: < 1 means toolkit faster
      if (r.isPresent()) {
        double speedup = 1 / r.get();
        worst = Math.min(worst, speedup);
        parts.add(f[2] + " " + ResultsReport.ratio(speedup));
      }
    }
    Optional<Figure> tAdd = results.find("DelayedInsertBenchmark.toolkitAddAfter", "", null);
    Optional<Figure> pAdd = results.find("DelayedInsertBenchmark.peerAddAfter", "", null);
    if (tAdd.isPresent() && pAdd.isPresent()) {
      double speedup = pAdd.get().median() / tAdd.get().median();
      worst = Math.min(worst, speedup);
      parts.add("addAfter, 1 M pending " + ResultsReport.ratio(speedup));
    }
    if (parts.isEmpty()) {
      absent("every toolkit figure vs the Java peer", "faster than client-java-extended",
          "≥ 2×");
      return;
    }
    md.append("| every toolkit figure vs the Java peer (speed-up; the worst decides) | faster "
            + "than client-java-extended | ≥ 2× | ")
        .append(String.join(", ", parts)).append(" | ")
        .append(worst > 1.0 ? "held" : "**missed**").append(" | ")
        .append(worst >= 2.0 ? "held" : "**missed**").append(" |\n");
  }

  /** toolkit ÷ baseline of a lateness figure with {@code pending} far-future items. */
  private Optional<Double> pendingRatio(String bench, String metric, String baseline,
      String pending) {
    Optional<Figure> t = lateness(bench, metric, "toolkit", pending);
    Optional<Figure> b = lateness(bench, metric, baseline, pending);
    if (t.isEmpty() || b.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(t.get().median() / b.get().median());
  }

  private Optional<Figure> lateness(String bench, String metric, String queue,
      String pending) {
    return ResultsReport.latenessFigure(results, bench, metric, queue, pending);
  }

  private void addAfterRow() {
    Optional<Figure> t = results.find("DelayedInsertBenchmark.toolkitAddAfter", "", null);
    Optional<Figure> dq = results.find("DelayedInsertBenchmark.delayQueueOffer", "", null);
    Optional<Figure> pq = results.find("DelayedInsertBenchmark.priorityQueueOffer", "", null);
    row("addAfter with 1 M pending", "≤ 1.5× DelayQueue.offer", "≤ 1.0× PriorityQueue.offer",
        div(t, dq), false, 1.5, div(t, pq), 1.0, "÷ DelayQueue", "÷ PriorityQueue");
  }

  private static Optional<Double> div(Optional<Figure> a, Optional<Figure> b) {
    if (a.isEmpty() || b.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(a.get().median() / b.get().median());
  }

  /**
   * The four lateness p50 cases (sparse and 100 k/s, 0 and 1 M pending): must is toolkit ≤
   * DelayQueue + 50 µs in each, aim toolkit ≤ 1.2× DelayQueue in each; the worst case decides.
   */
  private void latenessRow() {
    String what = "lateness p50 (sparse, 100 k/s due; 0 and 1 M pending)";
    String must = "≤ DelayQueue p50 + 50 µs";
    String aim = "≤ 1.2× DelayQueue p50";
    List<String> parts = new ArrayList<>();
    boolean mustHeld = true;
    boolean aimHeld = true;
    int cases = 0;
    for (String[] s : new String[][] {{"sparse", "sparse"}, {"rate100k", "100 k/s"}}) {
      for (String pending : List.of("0", "1000000")) {
        String bench = "LatenessBenchmark." + s[0];
        Optional<Figure> t = lateness(bench, "p50_us", "toolkit", pending);
        Optional<Figure> d = lateness(bench, "p50_us", "delayqueue", pending);
        if (t.isEmpty() || d.isEmpty()) {
          continue;
        }
        cases++;
        double tv = t.get().median();
        double dv = d.get().median();
        double r = tv / dv;
        mustHeld &= tv <= dv + 50;
        aimHeld &= r <= 1.2;
        parts.add(String.format(java.util.Locale.ROOT, "%s, %s pending: %.1f − %.1f µs = "
            + "%+.1f µs, %s", s[1], "0".equals(pending) ? "0" : "1 M", tv, dv, tv - dv,
            ResultsReport.ratio(r)));
      }
    }
    if (cases == 0) {
      absent(what, must, aim);
      return;
    }
    String partial = cases < 4 ? " (" + cases + " of 4 cases in this run)" : "";
    md.append("| ").append(what).append(" | ").append(must).append(" | ").append(aim)
        .append(" | toolkit − / ÷ DelayQueue: ").append(String.join("; ", parts))
        .append(partial).append(" | ").append(mustHeld ? "held" : "**missed**")
        .append(partial.isEmpty() ? "" : " so far").append(" | ")
        .append(aimHeld ? "held" : "**missed**").append(partial.isEmpty() ? "" : " so far")
        .append(" |\n");
  }

  private void saturationRow() {
    Optional<Double> r =
        ratio("SaturatedLatenessBenchmark.saturated", "p50_us", "delayqueue");
    row("lateness under saturation (1 M/s due) p50", "≤ 1.0× DelayQueue", "≤ 0.5× DelayQueue",
        r, false, 1.0, r, 0.5, "÷ DelayQueue", null);
  }

  /**
   * A bar judged on the worst of several toolkit ÷ DelayQueue ratios of one figure (medians),
   * each case {label, toolkit queue param, other param, value...}; a case whose spreads (min–max
   * over iterations) overlap is flagged in the text: that ratio alone is not a verdict.
   */
  private void delayRow(String what, String must, String aim, double mustBar, double aimBar,
      String bench, String metric, String[][] cases) {
    List<String> parts = new ArrayList<>();
    double worst = Double.NaN;
    for (String[] c : cases) {
      String[] p = java.util.Arrays.copyOf(c, c.length); // {label, queue, params...}
      p[0] = "queue";
      Optional<Figure> t = results.where(bench, metric, p);
      p[1] = "delayqueue";
      Optional<Figure> d = results.where(bench, metric, p);
      if (t.isEmpty() || d.isEmpty()) {
        continue;
      }
      double r = t.get().median() / d.get().median();
      worst = Double.isNaN(worst) ? r : Math.max(worst, r);
      parts.add((c[0].isEmpty() ? "" : c[0] + " ")
          + ResultsReport.vsBaseline(t.get(), d.get()));
    }
    if (parts.isEmpty()) {
      absent(what, must, aim);
      return;
    }
    String partial = parts.size() < cases.length
        ? " (" + parts.size() + " of " + cases.length + " cases in this run)" : "";
    Optional<Double> r = Optional.of(worst);
    md.append("| ").append(what).append(" | ").append(must).append(" | ").append(aim)
        .append(" | toolkit ÷ DelayQueue: ").append(String.join("; ", parts)).append(partial)
        .append(" | ").append(verdict(r, false, mustBar)).append(" | ")
        .append(verdict(r, false, aimBar)).append(" |\n");
  }

  private void memoryRow() {
    Optional<Figure> t = results.find("DelayedMemoryBenchmark.measure", "bytesPerItem",
        "toolkit");
    String what = "memory per pending delayed item (keys excluded)";
    if (t.isEmpty()) {
      absent(what, "≤ 81 B", "≤ 40 B");
      return;
    }
    double b = t.get().median();
    md.append("| ").append(what).append(" | ≤ 81 B | ≤ 40 B | ")
        .append(String.format(java.util.Locale.ROOT, "%.1f B", b)).append(" | ")
        .append(b <= 81 ? "held" : "**missed**").append(" | ")
        .append(b <= 40 ? "held" : "**missed**").append(" |\n");
  }

  /** A bar whose figures exist in the harness but were not part of this run. */
  private void absent(String what, String must, String aim) {
    md.append("| ").append(what).append(" | ").append(must).append(" | ").append(aim)
        .append(" | not in this run | not measured | not measured |\n");
  }

  private void notYet(String what, String must, String aim, String why) {
    md.append("| ").append(what).append(" | ").append(must).append(" | ").append(aim)
        .append(" | ").append(why).append(" | not measured yet | not measured yet |\n");
  }
}
