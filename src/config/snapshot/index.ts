/**
 * Stored snapshots: reading, listing, resolving a short hex, removing and pruning them.
 */
export { planOfSnapshot } from './plan-of-snapshot.js';
export { pruneSnapshots, SNAPSHOT_PRUNE_GRACE_MS } from './prune-snapshots.js';
export { removeSnapshot } from './remove-snapshot.js';
export { listSnapshots, readSnapshot, resolveSnapshotHex } from './snapshot-store.js';
export type { Snapshot, StoredSnapshot } from './types.js';
