package dev.workqueue.examples;

import dev.workqueue.clock.FakeClock;
import dev.workqueue.scheduling.ClusterEvent;
import dev.workqueue.scheduling.PoppedItem;
import dev.workqueue.scheduling.QueueingHint;
import dev.workqueue.testing.RecordingSchedulingMetricsProvider;
import dev.workqueue.testing.RecordingSchedulingMetricsProvider.Incoming;
import dev.workqueue.scheduling.Rejectors;
import dev.workqueue.scheduling.Resource;
import dev.workqueue.scheduling.SchedulingQueue;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A scheduler on the {@link SchedulingQueue}: pods with CPU and memory requests are placed on
 * nodes with capacity. A pod that fits somewhere is bound to the node it fills best; a pod
 * that fits nowhere is rejected by the {@code NodeResourcesFit} rejector and waits in the
 * unschedulable pool. An autoscaler adds a node every 10 s while pods wait there, small and
 * large in turn; the rejector's <em>queueing hint</em> for "node added" says QUEUE only for
 * the pods that would fit on the new node, so a small node leaves the big pods where they
 * are. Binding fails now and then ({@code --bind-failure-rate}): an error with no rejector,
 * which backs off (1 s doubling) and retries whatever happens.
 *
 * <p>Every line shows what the scheduler did, where the queue moved items (read from its own
 * {@code queue_incoming_items_total} metric) and the sizes of activeQ, backoffQ and the pool;
 * at the end, the nodes and the queue's metrics.
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.SchedulerSimulation -Dexec.args="--pods 24 --seed 1"
 * </pre>
 *
 * <p>It runs on simulated time: a {@link FakeClock} that the simulation moves to the next
 * thing that happens (a back-off flush, the autoscaler), so a run is instant and the same
 * seed prints the same run. One thread pops and reports, as kube-scheduler's
 * {@code scheduleOne} loop does; it pops only while activeQ has items, so {@code pop} never
 * blocks here.
 */
public final class SchedulerSimulation {
  /** The rejector that says "no node has room". */
  public static final String FIT = "NodeResourcesFit";
  /** What the autoscaler's event is about. */
  public static final Resource NODE = Resource.of("node");
  /** A node was added: the event the {@link #FIT} rejector's hint is registered for. */
  public static final ClusterEvent NODE_ADDED = ClusterEvent.of(NODE, ClusterEvent.ADD);

  static final String QUEUE_NAME = "pods";
  static final Duration AUTOSCALE_EVERY = Duration.ofSeconds(10);
  static final Node INITIAL_SHAPE = new Node("initial", 4000, 8192);
  static final List<Node> AUTOSCALED_SHAPES =
      List.of(new Node("small", 1000, 2048), new Node("large", 8000, 16384));
  private static final int[] CPU_REQUESTS = {250, 500, 1000, 1500, 2000, 3000};
  private static final int[] MEMORY_REQUESTS = {256, 512, 1024, 2048, 4096};
  private static final Duration GIVE_UP_AFTER = Duration.ofHours(1);

  private SchedulerSimulation() {}

  /** The settings; {@link #parse} reads them from the command line. */
  public record Options(int pods, int nodes, double bindFailureRate, long seed, boolean quiet) {
    static final String USAGE = "usage: SchedulerSimulation [--pods N] [--nodes N]"
        + " [--bind-failure-rate 0..0.9] [--seed N] [--quiet]";
    static final String HELP = String.join("\n",
        "  --pods N                     pods to place (default 24)",
        "  --nodes N                    nodes at the start; the autoscaler adds more (default 2)",
        "  --bind-failure-rate 0..0.9   share of binds that fail and are retried (default 0.15)",
        "  --seed N                     the random choices: a seed prints the same run (default 1)",
        "  --quiet                      print only the summary");

    /** @throws IllegalArgumentException if a count is below 1 or the rate outside [0, 0.9] */
    public Options {
      if (pods < 1) {
        throw new IllegalArgumentException("pods must be at least 1, was " + pods);
      }
      if (nodes < 1) {
        throw new IllegalArgumentException("nodes must be at least 1, was " + nodes);
      }
      if (!(bindFailureRate >= 0 && bindFailureRate <= 0.9)) {
        throw new IllegalArgumentException(
            "bindFailureRate must be within [0, 0.9], was " + bindFailureRate);
      }
    }

    /** Parses the command line; defaults: 24 pods, 2 nodes, 0.15, seed 1, not quiet. */
    public static Options parse(String... args) {
      Flags f = Flags.parse(USAGE, HELP,
          Set.of("--pods", "--nodes", "--bind-failure-rate", "--seed"), Set.of("--quiet"), args);
      return new Options(f.intAtLeast("--pods", 1, 24), f.intAtLeast("--nodes", 1, 2),
          f.doubleWithin("--bind-failure-rate", 0, 0.9, 0.15), f.longValue("--seed", 1),
          f.has("--quiet"));
    }
  }

  /** A node and its capacity, in millicores and MiB. */
  public record Node(String name, int cpuMillis, int memoryMiB) {
    /** Whether {@code pod} fits on this node while it is empty. */
    public boolean fits(Pod pod) {
      return pod.cpuMillis() <= cpuMillis && pod.memoryMiB() <= memoryMiB;
    }

    @Override
    public String toString() {
      return name + " (" + cpuMillis + "m, " + memoryMiB + "Mi)";
    }
  }

  /** A pod and its requests; higher priority is scheduled first. */
  public record Pod(String name, int cpuMillis, int memoryMiB, int priority) {}

  /** A node at the end: what is bound to it. */
  public record NodeUse(Node node, int cpuUsed, int memoryUsed, List<String> pods) {}

  /**
   * One node-added event.
   *
   * @param pooled the pods in the unschedulable pool just before
   * @param hintQueue the pods the hint answered QUEUE for
   * @param hintSkip the pods the hint answered SKIP for
   * @param moved the pods that left the pool
   */
  public record NodeAdded(Duration at, Node node, List<String> pooled, List<String> hintQueue,
      List<String> hintSkip, List<String> moved) {}

  /** What a run did. */
  public record Summary(List<Pod> pods, Map<String, String> placements, List<NodeUse> nodes,
      List<NodeAdded> nodesAdded, int attempts, int rejections, int bindErrors,
      Duration elapsed, Map<String, Double> metrics) {}

  public static void main(String[] args) throws InterruptedException {
    Options options = Flags.orExit(() -> Options.parse(args));
    run(new FakeClock(), options, System.out);
  }

  /** Runs the simulation on {@code clock}, which it moves itself; prints to {@code out}. */
  public static Summary run(FakeClock clock, Options o, PrintStream out)
      throws InterruptedException {
    return new Run(clock, o, out).run();
  }

  /** The state of one run. Single-threaded. */
  private static final class Run {
    private final FakeClock clock;
    private final Options o;
    private final PrintStream out;
    private final Random random;
    private final long start;
    private final RecordingSchedulingMetricsProvider metrics = new RecordingSchedulingMetricsProvider();
    private final SchedulingQueue<String, Pod> queue;
    private final List<Pod> pods = new ArrayList<>();
    private final Map<String, NodeState> nodes = new LinkedHashMap<>();
    private final Map<String, String> placements = new TreeMap<>();
    private final List<NodeAdded> nodesAdded = new ArrayList<>();
    /** The hint's answers for the event being delivered, by pod. */
    private final Map<String, QueueingHint> hintAnswers = new LinkedHashMap<>();
    private int attempts;
    private int rejections;
    private int bindErrors;

    Run(FakeClock clock, Options o, PrintStream out) {
      this.clock = clock;
      this.o = o;
      this.out = out;
      this.random = new Random(o.seed());
      this.start = clock.nanoTime();
      this.queue = SchedulingQueue.<String, Pod>builder(Pod::name)
          .name(QUEUE_NAME)
          .clock(clock)
          .metricsProvider(metrics)
          .priority(Pod::priority)
          .hint(FIT, NODE_ADDED, (pod, oldNode, newNode) -> {
            // Runs under the queue's lock: decide fast, touch nothing but our own notes.
            QueueingHint h = ((Node) newNode).fits(pod) ? QueueingHint.QUEUE : QueueingHint.SKIP;
            hintAnswers.put(pod.name(), h);
            return h;
          })
          .build();
    }

    Summary run() throws InterruptedException {
      for (int i = 1; i <= o.nodes(); i++) {
        Node n = new Node("node-" + i, INITIAL_SHAPE.cpuMillis(), INITIAL_SHAPE.memoryMiB());
        nodes.put(n.name(), new NodeState(n));
      }
      int width = String.valueOf(o.pods()).length();
      for (int i = 1; i <= o.pods(); i++) {
        pods.add(new Pod(String.format("pod-%0" + width + "d", i),
            CPU_REQUESTS[random.nextInt(CPU_REQUESTS.length)],
            MEMORY_REQUESTS[random.nextInt(MEMORY_REQUESTS.length)], random.nextInt(3)));
      }
      out.printf("%d pods, %d nodes of %dm/%dMi; while pods wait unschedulable a node is added"
          + " every %d s (%s); binding fails %.0f%% of the time; seed %d%n", o.pods(), o.nodes(),
          INITIAL_SHAPE.cpuMillis(), INITIAL_SHAPE.memoryMiB(), AUTOSCALE_EVERY.toSeconds(),
          AUTOSCALED_SHAPES.stream().map(s -> s.name() + " " + s.cpuMillis() + "m/"
              + s.memoryMiB() + "Mi").collect(Collectors.joining(", then ")),
          100 * o.bindFailureRate(), o.seed());

      SortedMap<Incoming, Long> before = metrics.incoming(QUEUE_NAME);
      pods.forEach(queue::add);
      report("add " + o.pods() + " pods", before);

      long nextAutoscale = start + AUTOSCALE_EVERY.toNanos();
      while (placements.size() < o.pods()) {
        if (clock.nanoTime() - start > GIVE_UP_AFTER.toNanos()) {
          throw new IllegalStateException("not converged after " + GIVE_UP_AFTER);
        }
        if (pending("active") > 0) {
          attempt();
          continue;
        }
        // Nothing to try now: move time to whatever happens next.
        Long wakeup = clock.nextWakeup();
        long target = wakeup != null && wakeup - nextAutoscale < 0 ? wakeup : nextAutoscale;
        before = metrics.incoming(QUEUE_NAME);
        clock.setTime(target); // runs the queue's flushes that are due
        report("time passes", before);
        if (clock.nanoTime() - nextAutoscale >= 0) {
          nextAutoscale += AUTOSCALE_EVERY.toNanos();
          if (pending("unschedulable") > 0) {
            addNode();
          }
        }
      }
      queue.close();
      Summary summary = summary();
      printSummary(summary);
      return summary;
    }

    /** One scheduling cycle: pop, find the node the pod fills best, bind or fail. */
    private void attempt() throws InterruptedException {
      SortedMap<Incoming, Long> before = metrics.incoming(QUEUE_NAME);
      PoppedItem<String, Pod> popped = queue.pop().orElseThrow();
      attempts++;
      Pod pod = popped.item();
      String what = String.format("%s %5dm %5dMi p%d", pod.name(), pod.cpuMillis(),
          pod.memoryMiB(), pod.priority());
      NodeState best = nodes.values().stream()
          .filter(n -> n.hasRoom(pod))
          .min(Comparator.comparingInt((NodeState n) -> n.cpuFree() - pod.cpuMillis())
              .thenComparingInt(n -> n.memoryFree() - pod.memoryMiB()))
          .orElse(null);
      if (best == null) {
        rejections++;
        queue.requeueFailed(popped, Rejectors.unschedulable(FIT));
        report(what + "  no node has room", before);
      } else if (random.nextDouble() < o.bindFailureRate()) {
        bindErrors++;
        queue.requeueFailed(popped, Rejectors.none());
        report(what + "  binding to " + best.node.name() + " failed", before);
      } else {
        best.bind(pod);
        placements.put(pod.name(), best.node.name());
        queue.done(popped.id());
        report(what + "  bound to " + best.node.name(), before);
      }
    }

    /** The autoscaler: a node joins, and the queue is told so. */
    private void addNode() {
      Node shape = AUTOSCALED_SHAPES.get(nodesAdded.size() % AUTOSCALED_SHAPES.size());
      Node node = new Node("node-" + (nodes.size() + 1), shape.cpuMillis(), shape.memoryMiB());
      nodes.put(node.name(), new NodeState(node));
      List<String> pooled = pool();
      SortedMap<Incoming, Long> before = metrics.incoming(QUEUE_NAME);
      hintAnswers.clear();
      queue.onEvent(NODE_ADDED, null, node);
      List<String> after = pool();
      List<String> moved = pooled.stream().filter(p -> !after.contains(p)).toList();
      List<String> queued = answered(QueueingHint.QUEUE);
      List<String> skipped = answered(QueueingHint.SKIP);
      nodesAdded.add(new NodeAdded(elapsed(), node, pooled, queued, skipped, moved));
      report(node + " added", before);
      if (!o.quiet()) {
        out.printf("%12s hint QUEUE: %s; SKIP: %s%n", "",
            queued.isEmpty() ? "-" : String.join(" ", queued),
            skipped.isEmpty() ? "-" : String.join(" ", skipped));
      }
    }

    private List<String> answered(QueueingHint h) {
      return hintAnswers.entrySet().stream().filter(e -> e.getValue() == h)
          .map(Map.Entry::getKey).toList();
    }

    /** The pods in the unschedulable pool: the tail of {@code pending()}, in arrival order. */
    private List<String> pool() {
      List<Pod> items = queue.pending().items();
      int pooled = pending("unschedulable") + pending("gated");
      return items.subList(items.size() - pooled, items.size()).stream().map(Pod::name).toList();
    }

    private int pending(String part) {
      return (int) metrics.pending(QUEUE_NAME, part);
    }

    /** One line: what happened, where the queue moved items, and the sizes of its parts. */
    private void report(String what, SortedMap<Incoming, Long> before) {
      List<String> moves = new ArrayList<>();
      metrics.incoming(QUEUE_NAME).forEach((series, count) -> {
        long n = count - before.getOrDefault(series, 0L);
        if (n > 0) {
          moves.add("->" + series.queueLabel() + (n > 1 ? " x" + n : "") + " (" + series.event() + ")");
        }
      });
      if (o.quiet() || (moves.isEmpty() && what.equals("time passes"))) {
        return;
      }
      out.printf("[%5.1f s] %-50s %-40s active %2d  backoff %2d  pool %2d%n",
          elapsed().toMillis() / 1000.0, what, String.join(", ", moves), pending("active"),
          pending("backoff"), pending("unschedulable"));
    }

    private Duration elapsed() {
      return Duration.ofNanos(clock.nanoTime() - start);
    }

    private Summary summary() {
      List<NodeUse> uses = nodes.values().stream()
          .map(n -> new NodeUse(n.node, n.cpuUsed, n.memoryUsed, List.copyOf(n.pods))).toList();
      return new Summary(List.copyOf(pods), Map.copyOf(placements), uses,
          List.copyOf(nodesAdded), attempts, rejections, bindErrors, elapsed(),
          metrics.snapshot(QUEUE_NAME));
    }

    private void printSummary(Summary s) {
      out.printf("%nplaced %d/%d pods in %.1f s of simulated time: %d attempts, %d rejected"
          + " for room, %d bind errors; %d nodes added%n", s.placements().size(), o.pods(),
          s.elapsed().toMillis() / 1000.0, s.attempts(), s.rejections(), s.bindErrors(),
          s.nodesAdded().size());
      out.printf("%-8s %15s %15s  %s%n", "node", "capacity", "used", "pods");
      for (NodeUse u : s.nodes()) {
        out.printf("%-8s %6dm %6dMi %6dm %6dMi  %s%n", u.node().name(), u.node().cpuMillis(),
            u.node().memoryMiB(), u.cpuUsed(), u.memoryUsed(), String.join(" ", u.pods()));
      }
      out.printf("scheduling queue metrics (%s):%n", QUEUE_NAME);
      s.metrics().forEach((name, value) -> out.printf("  %-76s %4.0f%n", name, value));
    }
  }

  /** A node and what is bound to it. */
  private static final class NodeState {
    final Node node;
    final List<String> pods = new ArrayList<>();
    int cpuUsed;
    int memoryUsed;

    NodeState(Node node) {
      this.node = node;
    }

    int cpuFree() {
      return node.cpuMillis() - cpuUsed;
    }

    int memoryFree() {
      return node.memoryMiB() - memoryUsed;
    }

    boolean hasRoom(Pod pod) {
      return pod.cpuMillis() <= cpuFree() && pod.memoryMiB() <= memoryFree();
    }

    void bind(Pod pod) {
      cpuUsed += pod.cpuMillis();
      memoryUsed += pod.memoryMiB();
      pods.add(pod.name());
    }
  }
}
