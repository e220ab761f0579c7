package dev.workqueue.kubernetes;

import java.util.List;

/**
 * Where the members of a shard ring publish their records: one Lease per member in the
 * cluster, a map in the simulation. Reads must be fresh (from the API server, not an informer's
 * cache) and writes guarded by the record's version, as the hand-over's safety rests on one
 * member's write being seen by another member's later read.
 */
interface ShardStore {
  /** A member's published record: its id, the store's version of it, its view, leaving. */
  record Entry(String id, String version, List<String> view, boolean leaving) {}

  /** Thrown by a write whose expected version is no longer the stored one. */
  final class Conflict extends Exception {
    private static final long serialVersionUID = 1L;

    Conflict(String message) {
      super(message);
    }
  }

  /** Every record of the ring, read now. */
  List<Entry> list() throws Exception;

  /**
   * Writes this member's record (a renewal, with a new version, if nothing else changed).
   *
   * @param expectedVersion the version last read or written, or null to create it
   * @return the record as stored, with its new version
   * @throws Conflict if the stored version is not {@code expectedVersion}
   */
  Entry write(String id, String expectedVersion, List<String> view, boolean leaving)
      throws Exception;

  /** Deletes this member's record, if it is still at {@code expectedVersion}. */
  void delete(String id, String expectedVersion) throws Exception;
}
