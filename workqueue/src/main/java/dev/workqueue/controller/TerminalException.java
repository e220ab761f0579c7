package dev.workqueue.controller;

/**
 * Thrown by a {@link Reconciler} when retrying cannot help (an invalid spec, say):
 * controller-runtime's {@code TerminalError}. The key is neither requeued nor forgotten; it
 * is reconciled again only when it is added again (the object changes).
 */
public class TerminalException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * A terminal failure described by {@code message}.
   *
   * @param message why retrying cannot help; the controller logs it
   */
  public TerminalException(String message) {
    super(message);
  }

  /**
   * A terminal failure described by {@code message}, caused by {@code cause}.
   *
   * @param message why retrying cannot help; the controller logs it
   * @param cause the underlying failure, or null
   */
  public TerminalException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A terminal failure caused by {@code cause}; its message is {@code cause.toString()}.
   *
   * @param cause the underlying failure, or null
   */
  public TerminalException(Throwable cause) {
    super(cause);
  }
}
