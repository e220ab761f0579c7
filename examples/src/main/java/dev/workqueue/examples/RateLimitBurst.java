package dev.workqueue.examples;

import dev.workqueue.RateLimitingQueue;
import dev.workqueue.WorkQueue;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import dev.workqueue.ratelimit.RateLimiters;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A token bucket shaping a burst: {@code --items} keys are added at once with
 * {@code addRateLimited} to a rate-limiting queue whose limiter is one token bucket of
 * {@code --qps} tokens per second holding at most {@code --burst} tokens (client-go's
 * {@code BucketRateLimiter}, here {@link RateLimiters#tokenBucket}). The bucket starts full,
 * so the first {@code burst} keys are released at once; each later key reserves the next
 * token and waits for it, so they come out {@code 1/qps} apart. A consumer takes each key
 * when it is released and prints the timeline.
 *
 * <p>With the defaults (20 items, 1 qps, burst 5) that is 5 keys at 0 s, then one per second
 * until 15 s:
 *
 * <pre>
 * mvn -B -q -pl examples -am -DskipTests package exec:java \
 *     -Dexec.mainClass=dev.workqueue.examples.RateLimitBurst -Dexec.args="--items 20 --qps 1 --burst 5"
 * </pre>
 *
 * <p>{@link #run} takes the {@link Clock}: the program runs on the real clock, its test on a
 * {@link FakeClock}, where the timeline comes out exact.
 */
public final class RateLimitBurst {
  private RateLimitBurst() {}

  /** The settings; {@link #parse} reads them from the command line. */
  public record Options(int items, double qps, int burst) {
    static final String USAGE = "usage: RateLimitBurst [--items N] [--qps F] [--burst N]";
    static final String HELP = String.join("\n",
        "  --items N  keys added at once with addRateLimited (default 20)",
        "  --qps F    the token bucket's rate: tokens a second, within (0, 1000000] (default 1)",
        "  --burst N  the bucket's size: keys that come out at once when it is full (default 5)");

    /**
     * @throws IllegalArgumentException if {@code items < 1}, {@code qps} is not positive and
     *     finite, or {@code burst < 1}
     */
    public Options {
      if (items < 1) {
        throw new IllegalArgumentException("items must be at least 1, was " + items);
      }
      if (!(qps > 0 && qps <= 1_000_000)) {
        throw new IllegalArgumentException("qps must be within (0, 1000000], was " + qps);
      }
      if (burst < 1) {
        throw new IllegalArgumentException("burst must be at least 1, was " + burst);
      }
    }

    /** Parses {@code --items N --qps F --burst N}; defaults 20, 1, 5. */
    public static Options parse(String... args) {
      Flags f = Flags.parse(USAGE, HELP, Set.of("--items", "--qps", "--burst"), Set.of(), args);
      int items = f.intAtLeast("--items", 1, 20);
      double qps = f.doubleWithin("--qps", 0, 1_000_000, 1.0);
      int burst = f.intAtLeast("--burst", 1, 5);
      try {
        return new Options(items, qps, burst);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(e.getMessage() + "\n" + USAGE, e);
      }
    }
  }

  /**
   * One key leaving the queue.
   *
   * @param item the key
   * @param at when the consumer got it, from the moment the keys were added
   */
  public record Release(String item, Duration at) {}

  public static void main(String[] args) throws InterruptedException {
    Options options = Flags.orExit(() -> Options.parse(args));
    List<Release> timeline = run(Clock.system(), options, System.out);
    printHistogram(timeline, options, System.out);
  }

  /**
   * Adds {@code o.items()} keys at once through the token bucket and takes them as they are
   * released, printing each release to {@code out} as it happens.
   *
   * <p>On a {@link FakeClock} time moves only when told: whenever nothing is ready the run
   * steps the clock a millisecond at a time until the next key is released, as a test does, so
   * the run takes no real time and release times are exact to the millisecond.
   *
   * @return the releases in the order the consumer took them
   */
  public static List<Release> run(Clock clock, Options o, PrintStream out)
      throws InterruptedException {
    RateLimitingQueue<String> queue = WorkQueue.<String>builder()
        .name("burst")
        .clock(clock)
        .buildRateLimiting(RateLimiters.tokenBucket(o.qps(), o.burst(), clock));
    out.printf("%d items through a token bucket of %s qps, burst %d%n", o.items(),
        stripZeros(o.qps()), o.burst());
    out.printf("%-9s %12s %16s%n", "item", "released at", "since previous");

    int width = String.valueOf(o.items()).length();
    long start = clock.nanoTime();
    for (int i = 1; i <= o.items(); i++) {
      queue.addRateLimited(String.format("item-%0" + width + "d", i));
    }

    List<Release> timeline = new ArrayList<>();
    try {
      while (timeline.size() < o.items()) {
        if (clock instanceof FakeClock fake) {
          // Simulated time: move it on a millisecond at a time until the limiter lets an item
          // out (the queue schedules nothing a test could jump to: consumers promote due items
          // themselves). Release times are therefore seen to the millisecond.
          while (queue.size() == 0) {
            if (queue.waitingCount() == 0) {
              throw new IllegalStateException("nothing ready and nothing waiting");
            }
            fake.step(Duration.ofMillis(1));
          }
        }
        String item = queue.get().orElseThrow();
        try {
          Release r = new Release(item, Duration.ofNanos(clock.nanoTime() - start));
          Duration gap = timeline.isEmpty() ? r.at() : r.at().minus(timeline.get(timeline.size() - 1).at());
          timeline.add(r);
          out.printf("%-9s %9d ms %13s ms%n", item, r.at().toMillis(), "+" + gap.toMillis());
          queue.forget(item); // the caller's duty on success (a no-op for a shared bucket)
        } finally {
          queue.done(item);
        }
      }
    } finally {
      queue.shutDown();
    }
    return timeline;
  }

  /**
   * One bar per refill interval of the bucket ({@code 1/qps}): how many keys were released in
   * it. Nothing if that would take more than 60 lines.
   */
  static void printHistogram(List<Release> timeline, Options o, PrintStream out) {
    if (timeline.isEmpty()) {
      return;
    }
    long interval = Math.max(1, (long) (1e9 / o.qps()));
    long bins = timeline.get(timeline.size() - 1).at().toNanos() / interval + 1;
    if (bins > 60) {
      return;
    }
    int[] counts = new int[(int) bins];
    for (Release r : timeline) {
      counts[(int) (r.at().toNanos() / interval)]++;
    }
    out.printf("released per %d ms:%n", interval / 1_000_000);
    for (int b = 0; b < counts.length; b++) {
      out.printf("%8d ms | %s %d%n", b * interval / 1_000_000, "#".repeat(counts[b]), counts[b]);
    }
  }

  private static String stripZeros(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }
}
