package dev.workqueue.kubernetes;

import java.util.List;

/** A {@link ShardStore} that passes every call on: tests override the call they disturb. */
class ForwardingShardStore implements ShardStore {
  private final ShardStore to;

  ForwardingShardStore(ShardStore to) {
    this.to = to;
  }

  @Override
  public List<Entry> list() throws Exception {
    return to.list();
  }

  @Override
  public Entry write(String id, String expected, List<String> view, boolean leaving)
      throws Exception {
    return to.write(id, expected, view, leaving);
  }

  @Override
  public void delete(String id, String expected) throws Exception {
    to.delete(id, expected);
  }
}
