package dev.workqueue.controller;

/**
 * Thrown by a {@link Reconciler} when retrying cannot help (an invalid spec, say):
 * controller-runtime's {@code TerminalError}. The key is neither requeued nor forgotten; it
 * is reconciled again only when it is added again (the object changes).
 */
public class TerminalException extends Exception {
  private static final long serialVersionUID = 1L;

  public TerminalException(String message) {
    super(message);
  }

  public TerminalException(String message, Throwable cause) {
    super(message, cause);
  }

  public TerminalException(Throwable cause) {
    super(cause);
  }
}
