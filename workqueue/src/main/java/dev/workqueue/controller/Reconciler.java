package dev.workqueue.controller;

/**
 * Makes the world match the object named by a key: controller-runtime's {@code Reconciler}.
 * Called by a {@link Controller}'s workers, never for the same key by two workers at once.
 *
 * <p>What the controller does with the outcome:
 *
 * <table>
 *   <caption>Outcomes</caption>
 *   <tr><th>the reconciler</th><th>the queue</th></tr>
 *   <tr><td>returns {@link Result#success()} or {@code null}</td><td>{@code forget}</td></tr>
 *   <tr><td>returns {@link Result#requeueAfter}</td><td>{@code forget}, then
 *       {@code addAfter(delay)}</td></tr>
 *   <tr><td>returns {@link Result#requeue()}</td><td>{@code addRateLimited}</td></tr>
 *   <tr><td>throws an exception, or an {@code Error} (including {@code StackOverflowError}),
 *       or times out</td><td>{@code addRateLimited} (or, past the retry cap, {@code forget}
 *       and the dropped-key handler)</td></tr>
 *   <tr><td>throws {@link TerminalException}</td><td>nothing: no requeue, no
 *       {@code forget}</td></tr>
 *   <tr><td>throws a {@code VirtualMachineError} other than {@code StackOverflowError}
 *       ({@code OutOfMemoryError}, {@code InternalError})</td><td>{@code addRateLimited} as for
 *       an exception; then the worker logs and rethrows the error and <b>ends</b>, since the JVM
 *       may be broken. The other workers go on; the controller runs one worker short until it is
 *       stopped and started again.</td></tr>
 * </table>
 *
 * and {@code done} always. On a {@link dev.workqueue.PriorityWorkQueue} every requeue is at the
 * priority the key was handed out at, unless the result sets one ({@link Result#withPriority}).
 * If the code the controller calls around the reconcile throws (the dropped-key handler, a
 * custom rate limiter, a metrics provider), the error is logged, the key is still done and the
 * worker goes on.
 *
 * <p>A reconciler should be idempotent: a key is reconciled again after any failure, and may be
 * reconciled again after a success if it changed meanwhile.
 *
 * @param <T> the key type
 */
@FunctionalInterface
public interface Reconciler<T> {

  /**
   * Reconciles {@code key}. If the controller has a reconcile timeout, the worker thread is
   * interrupted when it passes: a reconciler that blocks should respond to interruption.
   *
   * @param key the key to reconcile, as added to the controller
   * @return what to do next: {@link Result#success()} (or null), {@link Result#requeue()} or
   *     {@link Result#requeueAfter}
   * @throws TerminalException if retrying cannot help: the key is not requeued
   * @throws Exception on any other failure: the key is requeued with back-off
   */
  Result reconcile(T key) throws Exception;
}
