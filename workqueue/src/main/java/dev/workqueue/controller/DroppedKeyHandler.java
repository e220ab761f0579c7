package dev.workqueue.controller;

/**
 * Told about a key the controller gave up on after too many failed reconciles.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface DroppedKeyHandler<T> {

  /**
   * Called in the worker thread, after the key was forgotten and before it is marked done.
   *
   * @param key the key
   * @param attempts how many times it was requeued through the limiter before this failure
   * @param lastFailure what the last reconcile threw
   */
  void dropped(T key, int attempts, Throwable lastFailure);
}
