package dev.workqueue.lincheck;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The sequential specification for {@link DelayingQueueDueLincheckTest}: {@link WorkQueueSpec}
 * plus the keys waiting for a delay, in the order they began to wait, on a clock that moves
 * only by {@code step}, one delay and a nanosecond at a time. So a step makes every waiting key
 * due, and each is then added as any add would be (merged if dirty, held until done if
 * processing), in the order their delays began: client-go's delaying queue. A key added again
 * while it waits keeps its place (the earlier ready time wins).
 */
public class DueDelayingQueueSpec extends WorkQueueSpec {
  private final WorkQueueModel queue;
  private final Set<Integer> waiting = new LinkedHashSet<>();

  public DueDelayingQueueSpec() {
    this(WorkQueueModel.fifo());
  }

  DueDelayingQueueSpec(WorkQueueModel queue) {
    super(queue);
    this.queue = queue;
  }

  public void addAfter(int key) {
    waiting.add(key);
  }

  public void step() {
    for (int key : waiting) {
      queue.add(key);
    }
    waiting.clear();
  }

  public int waitingCount() {
    return waiting.size();
  }

  @Override
  public boolean equals(Object o) {
    return super.equals(o) && o instanceof DueDelayingQueueSpec s
        && List.copyOf(waiting).equals(List.copyOf(s.waiting)); // in order
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + waiting.hashCode();
  }
}
