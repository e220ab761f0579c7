package dev.workqueue;

/**
 * For tests outside this package (the Lincheck tests): queues that start as if several threads
 * took from them, so that a new item joins the line under the lock instead of the FIFO's
 * intake from the first add ({@code CrowdWindow}).
 */
public final class CrowdedQueues {
  private CrowdedQueues() {}

  /** {@code b.buildDelaying()}, crowded from the start. */
  public static <T> DelayingQueue<T> delaying(WorkQueueBuilder<T> b) {
    return b.startCrowdedForTests().buildDelaying();
  }
}
