package dev.workqueue.lincheck;

/**
 * The sequential specification Lincheck checks {@link WorkQueueLincheckTest} against: the same
 * operations with the same signatures, answered by a {@link WorkQueueModel}.
 */
public class WorkQueueSpec {
  private final WorkQueueModel model;

  public WorkQueueSpec() {
    this(WorkQueueModel.fifo());
  }

  WorkQueueSpec(WorkQueueModel model) {
    this.model = model;
  }

  public void add(int key) {
    model.add(key);
  }

  public Integer poll() {
    return model.poll();
  }

  public void done(int key) {
    model.done(key);
  }

  public int size() {
    return model.size();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WorkQueueSpec s && model.equals(s.model);
  }

  @Override
  public int hashCode() {
    return model.hashCode();
  }
}
