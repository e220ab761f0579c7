package dev.workqueue.examples.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReservationsTest {
  private final FakeClock clock = new FakeClock();
  private final Reservations reservations = new Reservations(Duration.ofSeconds(2), clock);

  @Test
  void aReservedPod_cannotBeReservedAgain_untilTheTtlRunsOut() {
    assertTrue(reservations.tryReserve("uid-1"));
    assertFalse(reservations.tryReserve("uid-1"));
    assertTrue(reservations.tryReserve("uid-2"), "another pod is independent");

    clock.step(Duration.ofSeconds(2).minusNanos(1));
    assertTrue(reservations.isReserved("uid-1"));
    assertFalse(reservations.tryReserve("uid-1"));

    clock.step(Duration.ofNanos(1));
    assertFalse(reservations.isReserved("uid-1"));
    assertTrue(reservations.tryReserve("uid-1"), "expired: free to reserve again");
  }

  @Test
  void release_freesAPodAtOnce() {
    assertTrue(reservations.tryReserve("uid-1"));
    reservations.release("uid-1");
    assertFalse(reservations.isReserved("uid-1"));
    assertTrue(reservations.tryReserve("uid-1"));
  }

  @Test
  void sweep_dropsExpiredEntriesFromTheCount() {
    reservations.tryReserve("uid-1");
    reservations.tryReserve("uid-2");
    assertEquals(2, reservations.estimatedSize());
    clock.step(Duration.ofSeconds(3));
    reservations.sweep();
    assertEquals(0, reservations.estimatedSize());
  }

  @Test
  void worksWithAClockNearTheEndOfItsRange() {
    FakeClock late = new FakeClock(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
    Reservations r = new Reservations(Duration.ofSeconds(2), late);
    assertTrue(r.tryReserve("uid-1"));
    late.step(Duration.ofMillis(1500)); // the reading wraps past Long.MAX_VALUE
    assertFalse(r.tryReserve("uid-1"));
    late.step(Duration.ofMillis(500));
    assertTrue(r.tryReserve("uid-1"));
  }
}
