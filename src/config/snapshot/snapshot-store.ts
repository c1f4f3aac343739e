/**
 * The snapshot store under `<data>/snapshots/<hex>/snapshot.json`. Snapshots are written to a
 * temporary directory and renamed into place (so readers never see half a snapshot and concurrent
 * writers of the same snapshot cannot corrupt it), made read-only, and verified on every read.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { CodexMmoError, IntegrityError, IoError, describeError } from '../../foundation/errors.js';
import { writeSyncedFile } from '../../foundation/paths/atomic-write.js';
import { REGISTRY_SCHEMA_VERSION } from '../registry/types.js';
import { canonicalJson } from './canonical-json.js';
import { snapshotText } from './build-snapshot.js';
import { sha256Hex } from './canonical-json.js';
import { SNAPSHOT_FORMAT, type Snapshot, type StoredSnapshot } from './types.js';

export const SNAPSHOT_FILE = 'snapshot.json';
/** A stored snapshot is readable by its owner only: it holds instructions and definitions. */
export const SNAPSHOT_FILE_MODE = 0o400;
export const SNAPSHOT_DIR_MODE = 0o500;
/** The snapshots directory itself. */
const STORE_DIR_MODE = 0o700;

/** Takes group and other access away from a snapshot stored by an older codex-mmo. */
async function makePrivate(dir: string): Promise<void> {
  const tighten = async (path: string, mode: number): Promise<void> => {
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && (info.mode & 0o077) !== 0)
      await chmod(path, mode).catch(() => undefined);
  };
  await tighten(join(dir, SNAPSHOT_FILE), SNAPSHOT_FILE_MODE);
  await tighten(dir, SNAPSHOT_DIR_MODE);
}
const HEX_ID = /^[0-9a-f]{64}$/;

/** What `snapshot list` shows about one stored snapshot. */
export interface SnapshotSummary {
  readonly id: string;
  /** When the snapshot directory was written (ISO 8601). */
  readonly stored_at: string;
  /** False when the snapshot failed verification; `problem` says why. */
  readonly ok: boolean;
  readonly profile?: string;
  readonly root?: string;
  readonly roles?: readonly string[];
  readonly servers?: readonly string[];
  readonly problem?: string;
}

export function snapshotsDir(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.includes(code);
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR')) return false;
    throw new IoError(path, `cannot inspect ${path}: ${describeError(error)}`, { cause: error });
  }
}

/**
 * Stores a snapshot unless an identical one is already stored. `created` is false when the
 * snapshot existed (including when a concurrent writer stored it first); nothing is rewritten.
 */
export async function storeSnapshot(
  dataDir: string,
  snapshot: Snapshot,
): Promise<{ stored: StoredSnapshot; created: boolean }> {
  const text = snapshotText(snapshot);
  const hex = sha256Hex(text);
  const root = snapshotsDir(dataDir);
  const target = join(root, hex);
  if (await exists(target)) {
    await makePrivate(target);
    return { stored: await readStored(root, hex), created: false };
  }

  try {
    await mkdir(root, { recursive: true, mode: STORE_DIR_MODE });
    await chmod(root, STORE_DIR_MODE);
  } catch (error) {
    throw new IoError(root, `cannot create ${root}: ${describeError(error)}`, { cause: error });
  }
  let temp: string;
  try {
    temp = await mkdtemp(join(root, `.tmp-${hex.slice(0, 12)}-`));
  } catch (error) {
    throw new IoError(root, `cannot write in ${root}: ${describeError(error)}`, { cause: error });
  }
  try {
    const file = join(temp, SNAPSHOT_FILE);
    await writeSyncedFile(file, text, SNAPSHOT_FILE_MODE);
    await chmod(file, SNAPSHOT_FILE_MODE);
    await chmod(temp, SNAPSHOT_DIR_MODE);
    try {
      await rename(temp, target);
    } catch (error) {
      // Another writer renamed the same snapshot into place first: verify theirs and use it.
      if (await exists(join(target, SNAPSHOT_FILE))) {
        return { stored: await readStored(root, hex), created: false };
      }
      throw error;
    }
    return { stored: { id: `sha256:${hex}`, dir: target, snapshot }, created: true };
  } catch (error) {
    if (error instanceof CodexMmoError) throw error;
    throw new IoError(target, `cannot store snapshot in ${target}: ${describeError(error)}`, {
      cause: error,
    });
  } finally {
    await removeTemp(temp);
  }
}

async function removeTemp(temp: string): Promise<void> {
  if (!(await exists(temp).catch(() => false))) return;
  await chmod(temp, 0o700).catch(() => undefined);
  await rm(temp, { recursive: true, force: true }).catch(() => undefined);
}

/** The hex part of an id or prefix (`sha256:` optional, case-insensitive). */
function hexOf(idOrPrefix: string): string {
  const raw = idOrPrefix.trim().toLowerCase();
  const hex = raw.startsWith('sha256:') ? raw.slice('sha256:'.length) : raw;
  if (!/^[0-9a-f]{1,64}$/.test(hex)) {
    throw new CodexMmoError(
      'usage-error',
      `'${idOrPrefix}' is not a snapshot id; give 'sha256:<hex>' or a unique prefix of the hex digits`,
    );
  }
  return hex;
}

async function storedIds(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return [];
    throw new IoError(root, `cannot read ${root}: ${describeError(error)}`, { cause: error });
  }
  return names.filter((name) => HEX_ID.test(name)).sort();
}

/**
 * Reads and verifies one snapshot by full id or unique prefix. Throws CodexMmoError `not-found`
 * when nothing matches, `usage-error` for an ambiguous prefix, IntegrityError when the stored
 * bytes no longer match their identity.
 */
export async function readSnapshot(dataDir: string, idOrPrefix: string): Promise<StoredSnapshot> {
  return readStored(snapshotsDir(dataDir), await resolveSnapshotHex(dataDir, idOrPrefix));
}

/**
 * The hex id of the one stored snapshot `idOrPrefix` names, without reading it. Throws like
 * `readSnapshot` for no match or an ambiguous prefix.
 */
export async function resolveSnapshotHex(dataDir: string, idOrPrefix: string): Promise<string> {
  const hex = hexOf(idOrPrefix);
  const root = snapshotsDir(dataDir);
  const matches =
    hex.length === 64
      ? (await exists(join(root, hex)))
        ? [hex]
        : []
      : (await storedIds(root)).filter((id) => id.startsWith(hex));
  if (matches.length === 0) {
    throw new CodexMmoError(
      'not-found',
      `no stored snapshot matches '${idOrPrefix}'; run 'codex-mmo snapshot list' to see the stored ones`,
    );
  }
  if (matches.length > 1) {
    throw new CodexMmoError(
      'usage-error',
      `snapshot prefix '${idOrPrefix}' is ambiguous: it matches ${matches
        .map((m) => `sha256:${m.slice(0, 16)}…`)
        .join(', ')}; give more digits`,
    );
  }
  return matches[0] ?? hex;
}

async function readStored(root: string, hex: string): Promise<StoredSnapshot> {
  const id = `sha256:${hex}`;
  const dir = join(root, hex);
  const file = join(dir, SNAPSHOT_FILE);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if (isErrno(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) {
      throw new IntegrityError(
        `snapshot ${id} is damaged: ${file} is missing; delete ${dir} and compile the profile again`,
      );
    }
    throw new IoError(file, `cannot read ${file}: ${describeError(error)}`, { cause: error });
  }
  const actual = sha256Hex(bytes);
  if (actual !== hex) {
    throw new IntegrityError(
      `snapshot ${id} was modified after it was stored (its content now hashes to sha256:${actual}); ` +
        `refusing to use it. Delete ${dir} and compile the profile again`,
    );
  }
  let snapshot: Snapshot;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    snapshot = JSON.parse(text) as Snapshot;
  } catch {
    throw new IntegrityError(`snapshot ${id} is not valid UTF-8 JSON; delete ${dir}`);
  }
  const problem = shapeProblem(snapshot);
  if (problem !== undefined) {
    throw new IntegrityError(`snapshot ${id} cannot be used: ${problem}; delete ${dir}`);
  }
  if (canonicalJson(snapshot) !== text) {
    throw new IntegrityError(`snapshot ${id} is not in canonical form; delete ${dir}`);
  }
  return { id, dir, snapshot };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'it is not a JSON object';
  if (value.format !== SNAPSHOT_FORMAT) {
    return `its format is ${JSON.stringify(value.format)}, this codex-mmo reads ${SNAPSHOT_FORMAT}`;
  }
  if (value.schema_version !== REGISTRY_SCHEMA_VERSION) {
    return `its schema_version is not ${REGISTRY_SCHEMA_VERSION}`;
  }
  for (const key of ['profile', 'servers', 'base', 'pins'] as const) {
    if (!isRecord(value[key])) return `its '${key}' is not an object`;
  }
  if (value.leases !== undefined && !isRecord(value.leases)) return "its 'leases' is not an object";
  const profile = value.profile as Record<string, unknown>;
  if (typeof profile.name !== 'string' || typeof profile.root !== 'string') {
    return 'its profile has no name or root';
  }
  if (!isRecord(profile.agents)) return 'its profile has no agents';
  return undefined;
}

/** Every stored snapshot, verified, oldest first. A damaged one is listed with `ok: false`. */
export async function listSnapshots(dataDir: string): Promise<SnapshotSummary[]> {
  const root = snapshotsDir(dataDir);
  const summaries: SnapshotSummary[] = [];
  for (const hex of await storedIds(root)) {
    const dir = join(root, hex);
    let storedAt: string;
    try {
      storedAt = (await stat(dir)).mtime.toISOString();
    } catch {
      continue; // removed while listing
    }
    try {
      const { id, snapshot } = await readStored(root, hex);
      summaries.push({
        id,
        stored_at: storedAt,
        ok: true,
        profile: snapshot.profile.name,
        root: snapshot.profile.root,
        roles: Object.keys(snapshot.profile.agents).sort(),
        servers: Object.keys(snapshot.servers).sort(),
      });
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      summaries.push({
        id: `sha256:${hex}`,
        stored_at: storedAt,
        ok: false,
        problem: error.message,
      });
    }
  }
  return summaries.sort((a, b) =>
    a.stored_at !== b.stored_at ? (a.stored_at < b.stored_at ? -1 : 1) : a.id < b.id ? -1 : 1,
  );
}
