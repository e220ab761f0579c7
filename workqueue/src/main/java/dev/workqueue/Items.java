package dev.workqueue;

/** Argument checks shared by the queues; messages name the argument. */
final class Items {
  private Items() {}

  static <T> T requireItem(T item) {
    if (item == null) {
      throw new NullPointerException("item must not be null");
    }
    return item;
  }

  static <T> T requireArg(T value, String name) {
    if (value == null) {
      throw new NullPointerException(name + " must not be null");
    }
    return value;
  }
}
