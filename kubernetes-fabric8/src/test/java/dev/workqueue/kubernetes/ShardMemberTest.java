package dev.workqueue.kubernetes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cases of the hand-over protocol the simulation's faults do not reach, one member at a time. */
class ShardMemberTest {
  private static final long LEASE = Duration.ofSeconds(15).toNanos();
  private static final long RENEW = Duration.ofSeconds(10).toNanos();

  private final FakeClock clock = new FakeClock();
  private final InMemoryShardStore store = new InMemoryShardStore();

  /** A key that is m's among [m, n], x's once x joins, and y's once y joins instead. */
  private static String keyMovingFromMTo(String first, String second) {
    for (int i = 0; i < 100_000; i++) {
      String k = "ns/k" + i;
      if ("m".equals(Rendezvous.owner(k, List.of("m", "n")))
          && first.equals(Rendezvous.owner(k, List.of("m", "n", first)))
          && second.equals(Rendezvous.owner(k, List.of("m", "n", second)))) {
        return k;
      }
    }
    throw new AssertionError("no such key");
  }

  /**
   * m's write of a new view times out and lands only after m's next read (the request was
   * still on its way): until it is settled that the write can no longer land, m must not start
   * a key that write would give away. Before the fix m adopted the old record it read, started
   * the key, and a member joining after the late write started it too.
   */
  @Test
  void aWriteThatTimesOutAndLandsLate_neverLetsTwoMembersStartAKey() throws Exception {
    String k = keyMovingFromMTo("x", "y");
    Runnable[] late = new Runnable[1];
    boolean[] delayNext = {false};
    Runnable[] meanwhile = {() -> { }};
    ShardStore delaying = new ForwardingShardStore(store.as("m")) {
      @Override
      public Entry write(String id, String expected, List<String> view, boolean leaving)
          throws Exception {
        if (delayNext[0]) {
          delayNext[0] = false;
          late[0] = () -> {
            try {
              store.write(id, expected, view, leaving);
            } catch (Conflict e) {
              throw new AssertionError(e);
            }
          };
          meanwhile[0].run();
          throw new IOException("timed out; the request is still on its way");
        }
        return super.write(id, expected, view, leaving);
      }
    };
    ShardMember m = new ShardMember("m", delaying, clock, LEASE, RENEW);
    ShardMember n = new ShardMember("n", store.as("n"), clock, LEASE, RENEW);
    m.tick();
    n.tick();
    m.tick();
    n.tick();
    assertEquals(List.of("m", "n"), m.publishedView());
    ShardMember x = new ShardMember("x", store.as("x"), clock, LEASE, RENEW);
    x.tick();
    clock.step(Duration.ofMillis(100));

    delayNext[0] = true; // m reads x and writes [m, n, x]; the answer times out
    meanwhile[0] = () -> {
      x.leave();
      x.tick(); // x leaves meanwhile (nothing in flight: its record goes)
    };
    m.tick(); // m reads [m, n] back: its view is [m, n] again, the write still in doubt
    assertFalse(m.tryAcquire(k), "the write in doubt gives " + k + " away: m must not start it");

    assertNotNull(late[0]);
    late[0].run(); // the write lands: m's record says [m, n, x]
    ShardMember y = new ShardMember("y", store.as("y"), clock, LEASE, RENEW);
    y.tick();
    boolean yStarts = y.tryAcquire(k);
    m.tick(); // m settles: its record moved, and it publishes its target again
    assertFalse(yStarts && m.inFlight().contains(k), "two members on " + k);
  }

  /**
   * A renewal whose answer comes late counts from when it was sent: the others count the
   * member out from when they saw the write, so a slow answer must not stretch its deadline.
   */
  @Test
  void aSlowAnswer_countsTheRenewalFromWhenItWasSent() {
    long[] answerTakes = {0};
    ShardStore slow = new ForwardingShardStore(store.as("m")) {
      @Override
      public Entry write(String id, String expected, List<String> view, boolean leaving)
          throws Exception {
        Entry e = super.write(id, expected, view, leaving);
        clock.step(Duration.ofNanos(answerTakes[0])); // stored now, answered later
        return e;
      }
    };
    ShardMember m = new ShardMember("m", slow, clock, LEASE, RENEW);
    m.tick();
    m.tick();
    assertTrue(m.tryAcquire("ns/a"), "alone in the ring: every key is m's");
    m.release("ns/a");
    answerTakes[0] = Duration.ofSeconds(8).toNanos();
    m.tick(); // stored at t, answered at t + 8 s
    clock.step(Duration.ofMillis(2500)); // t + 10.5 s: past the renew deadline from the store
    assertTrue(m.isCutOff(), "the renewal counts from when it was sent");
    assertFalse(m.tryAcquire("ns/a"));
  }
}
