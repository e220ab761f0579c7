package dev.workqueue.examples;

/** Placeholder for the main demo; replaced once the queues exist. */
public final class Demo {
  private Demo() {}

  public static void main(String[] args) {
    System.out.println("workqueue toolkit: demo placeholder");
  }
}
