package dev.workqueue.kubernetes.testing;

/**
 * This machine could not give a test a real API server: the kube-apiserver binary could not be
 * built or found, or etcd or kube-apiserver did not start or become ready. The message names
 * the step that failed and where its log is.
 */
public final class ProvisioningException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * An exception with {@code message}.
   *
   * @param message what failed, naming the step
   */
  public ProvisioningException(String message) {
    super(message);
  }
}
