package dev.workqueue.scheduling;

import com.google.common.testing.NullPointerTester;
import dev.workqueue.clock.Clock;
import dev.workqueue.clock.FakeClock;
import java.time.Duration;
import java.util.Comparator;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class NullArgumentsTest {
  private final NullPointerTester tester = new NullPointerTester()
      .setDefault(String.class, "x")
      .setDefault(Clock.class, new FakeClock())
      .setDefault(Duration.class, Duration.ofSeconds(1))
      .setDefault(ClusterEvent.class, ClusterEvent.WILDCARD)
      .setDefault(Resource.class, Resource.ITEM)
      .setDefault(Function.class, Function.identity())
      .setDefault(Comparator.class, Comparator.naturalOrder());

  @Test
  void builderSetters_rejectNull() {
    tester.testAllPublicInstanceMethods(SchedulingQueue.<String, String>builder(s -> s));
  }

  @Test
  void keyedHeap_rejectsNull() {
    tester.testAllPublicInstanceMethods(
        new KeyedHeap<String, String>(s -> s, Comparator.naturalOrder()));
    tester.testAllPublicConstructors(KeyedHeap.class);
  }

  @Test
  void valueTypes_rejectNull() {
    tester.testAllPublicStaticMethods(Rejectors.class);
    tester.testAllPublicStaticMethods(Gate.class);
    tester.testAllPublicStaticMethods(ClusterEvent.class);
    tester.testAllPublicStaticMethods(Resource.class);
  }

  @Test
  void lookupTypes_rejectNull() {
    NullPointerTester t = tester.setDefault(Rejectors.class, Rejectors.none())
        .setDefault(ItemSnapshot.class,
            new ItemSnapshot<>("a", "a", 0, 0, 0, 0, 0, Rejectors.none()));
    t.testAllPublicConstructors(ItemSnapshot.class);
    t.testAllPublicConstructors(PoppedItem.class);
    t.testAllPublicConstructors(ItemStatus.Active.class);
    t.testAllPublicConstructors(ItemStatus.BackingOff.class);
    t.testAllPublicConstructors(ItemStatus.Unschedulable.class);
    t.testAllPublicConstructors(ItemStatus.Gated.class);
    t.testAllPublicConstructors(ItemStatus.InFlight.class);
    t.testAllPublicInstanceMethods(new QueueCounts(0, 0, 0, 0, 0));
  }
}
