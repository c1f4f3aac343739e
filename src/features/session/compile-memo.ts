/**
 * Lets `run` and `exec` reuse the snapshot an earlier compile of the very same inputs produced,
 * skipping the load, validation and resolution of registry and pack. Entries in
 * `<data>/compile-memo/<key>.json` are keyed by a SHA-256 over everything a compile reads plus this
 * build of codex-mmo; a hit must verify against its stored snapshot, anything else compiles.
 */
import { createHash, type Hash } from 'node:crypto';
import {
  lstatSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { CompileRequest, CompileResult } from '../../config/compile/compile-profile.js';
import { hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { pruneEntries } from '../../foundation/paths/prune-entries.js';
import { configFiles } from '../../foundation/paths/directories.js';
import { PACK_FILE } from '../../config/profile/pack-fields.js';
import type { ResolvedPlan } from '../../config/profile/types.js';
import { canonicalJson } from '../../config/snapshot/canonical-json.js';
import { planOfSnapshot } from '../../config/snapshot/plan-of-snapshot.js';
import { readSnapshot } from '../../config/snapshot/snapshot-store.js';
import { VERSION } from '../../foundation/version.js';

/** Directory of the memo entries inside the data dir. */
export const MEMO_DIR = 'compile-memo';
const MEMO_FORMAT = 'codex-mmo-compile-memo/1';
/** Entries kept; older ones are removed when a new one is written. */
export const MEMO_KEEP = 32;
/** Beyond these, inputs are not fingerprinted and every launch compiles. */
export const MEMO_MAX_ENTRIES = 512;
export const MEMO_MAX_BYTES = 8 * 1024 * 1024;

const KEY_PATTERN = /^[0-9a-f]{64}$/;
const SNAPSHOT_ID = /^sha256:[0-9a-f]{64}$/;

/** Thrown inside fingerprinting when the inputs cannot be captured; becomes "no key". */
class Unkeyable extends Error {}

class Fingerprint {
  private readonly hash: Hash = createHash('sha256');
  private entries = 0;
  private bytes = 0;

  add(...parts: readonly (string | number)[]): void {
    for (const part of parts) {
      const text = String(part);
      this.hash.update(`${text.length}:${text};`);
    }
    this.hash.update('\n');
  }

  stats(tag: string, path: string, info: Stats): void {
    if (++this.entries > MEMO_MAX_ENTRIES) throw new Unkeyable('too many files');
    this.add(
      tag,
      path,
      info.mode,
      info.uid,
      info.gid,
      info.size,
      info.mtimeMs,
      info.ctimeMs,
      info.ino,
      info.dev,
    );
  }

  content(path: string, size: number): void {
    this.bytes += size;
    if (this.bytes > MEMO_MAX_BYTES) throw new Unkeyable('too many bytes');
    const bytes = readFileSync(path);
    this.add('content', bytes.length);
    this.hash.update(bytes);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

/**
 * One path: its metadata, a symbolic link's target, a regular file's bytes, and a directory's
 * entries when `recurse`. A symbolic link to a directory inside a tree is not followed: such
 * inputs are not fingerprinted at all.
 */
function addPath(fp: Fingerprint, path: string, recurse: boolean): void {
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch (error) {
    fp.add('absent', path, errorCode(error));
    return;
  }
  fp.stats('entry', path, info);
  if (info.isSymbolicLink()) {
    fp.add('link', readlinkSync(path));
    let target: Stats;
    try {
      target = statSync(path);
    } catch (error) {
      fp.add('dangling', errorCode(error));
      return;
    }
    fp.stats('target', realpathSync(path), target);
    if (target.isDirectory()) throw new Unkeyable('a symbolic link to a directory');
    if (target.isFile()) fp.content(path, target.size);
    return;
  }
  if (info.isFile()) fp.content(path, info.size);
  else if (info.isDirectory() && recurse) {
    for (const name of readdirSync(path).sort()) addPath(fp, join(path, name), true);
  }
}

/** A root (which may itself be or lie under a symbolic link), then everything under it. */
function addTree(fp: Fingerprint, root: string): void {
  let real: string;
  try {
    real = realpathSync(root);
  } catch (error) {
    fp.add('no-root', root, errorCode(error));
    return;
  }
  fp.add('root', root, real);
  addPath(fp, real, true);
}

/**
 * A pack directory candidate: its whole tree when it holds `profile.toml`; otherwise only what
 * decides that it is not a pack (a compile of such a directory fails and is never remembered).
 */
function addPackCandidate(fp: Fingerprint, dir: string): void {
  let isPack: boolean;
  try {
    isPack = statSync(join(dir, PACK_FILE)).isFile();
  } catch {
    isPack = false;
  }
  if (isPack) {
    addTree(fp, dir);
    return;
  }
  fp.add('not-a-pack', dir);
  addPath(fp, dir, false);
  addPath(fp, join(dir, PACK_FILE), false);
  try {
    fp.stats('followed', dir, statSync(dir));
  } catch (error) {
    fp.add('unreachable', dir, errorCode(error));
  }
}

/** Identity of this build of codex-mmo: its version and this module file (rewritten by a build). */
function addCode(fp: Fingerprint): void {
  const self = fileURLToPath(import.meta.url);
  const info = statSync(self);
  fp.add('code', VERSION, self, info.size, info.mtimeMs, info.ino);
}

/**
 * The memo key of a compile request: the candidate pack directories (every file's bytes and
 * metadata), `tool-mcp.d/`, `codex-base.toml` and `tool-mcp.lock`, the request and this build, so
 * any changed byte, file, mode or rebuild gives a new key. Undefined when the inputs cannot be
 * captured (too large, a directory reached through a symbolic link, unreadable): no reuse then.
 */
export function compileKey(request: CompileRequest): string | undefined {
  const { nameOrPath, dirs } = request;
  if (nameOrPath === '') return undefined;
  try {
    const fp = new Fingerprint();
    addCode(fp);
    const cwd = resolve(request.cwd);
    const dataDir = resolve(dirs.dataDir);
    const configDir = resolve(dirs.configDir);
    fp.add('request', MEMO_FORMAT, nameOrPath, cwd, dataDir, configDir);
    addPackCandidate(fp, resolve(cwd, nameOrPath));
    if (!nameOrPath.includes('/') && nameOrPath !== '.' && nameOrPath !== '..') {
      addPackCandidate(fp, join(dataDir, 'profiles', nameOrPath));
    }
    const files = configFiles(configDir);
    addPath(fp, configDir, false);
    addTree(fp, files.registryDir);
    addTree(fp, files.codexBase);
    addTree(fp, files.lock);
    return fp.digest();
  } catch {
    return undefined;
  }
}

interface MemoEntry {
  readonly format: string;
  readonly key: string;
  readonly snapshot: string;
  readonly plan: ResolvedPlan;
  readonly diagnostics: Diagnostic[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function memoFile(dataDir: string, key: string): string {
  return join(dataDir, MEMO_DIR, `${key}.json`);
}

/**
 * The remembered result for `key`, or undefined. Entries are data of the data dir, trusted like
 * the snapshots beside them; still, the snapshot must verify and re-derive the remembered plan.
 */
export async function recallCompile(
  dataDir: string,
  key: string,
): Promise<CompileResult | undefined> {
  if (!KEY_PATTERN.test(key)) return undefined;
  try {
    const entry: unknown = JSON.parse(await readFile(memoFile(dataDir, key), 'utf8'));
    if (
      !isRecord(entry) ||
      entry.format !== MEMO_FORMAT ||
      entry.key !== key ||
      typeof entry.snapshot !== 'string' ||
      !SNAPSHOT_ID.test(entry.snapshot) ||
      !isRecord(entry.plan) ||
      !Array.isArray(entry.diagnostics) ||
      !entry.diagnostics.every(isRecord)
    ) {
      return undefined;
    }
    const diagnostics = entry.diagnostics as unknown as Diagnostic[];
    if (hasErrors(diagnostics)) return undefined;
    const plan = entry.plan as unknown as ResolvedPlan;
    const stored = await readSnapshot(dataDir, entry.snapshot);
    // the plan must be exactly what the verified snapshot resolves to
    if (canonicalJson(planOfSnapshot(stored.snapshot)) !== canonicalJson(plan)) return undefined;
    return { stored, created: false, plan, diagnostics };
  } catch {
    return undefined;
  }
}

/** Remembers a successful compile under `key` (best effort: a failure to write is ignored). */
export async function rememberCompile(
  dataDir: string,
  key: string,
  result: CompileResult,
): Promise<void> {
  const { stored, plan, diagnostics } = result;
  if (!KEY_PATTERN.test(key) || stored === undefined || plan === undefined) return;
  if (hasErrors(diagnostics)) return;
  try {
    const planText = canonicalJson(plan);
    // only plans that survive JSON and re-derive from the snapshot alone are remembered
    if (canonicalJson(JSON.parse(JSON.stringify(plan))) !== planText) return;
    if (canonicalJson(planOfSnapshot(stored.snapshot)) !== planText) return;
    const entry: MemoEntry = { format: MEMO_FORMAT, key, snapshot: stored.id, plan, diagnostics };
    const dir = join(dataDir, MEMO_DIR);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const file = memoFile(dataDir, key);
    await writeFileAtomic(file, `${JSON.stringify(entry)}\n`, 0o600, { durable: false });
    await pruneEntries(dir, MEMO_KEEP);
  } catch {
    // the memo only saves time; without it the next launch compiles again
  }
}

/**
 * `compileProfile` with reuse: the remembered result when the inputs are unchanged, otherwise a
 * compile (loaded only then), remembered when it succeeded and its inputs did not change under it.
 */
export async function compileOrReuse(request: CompileRequest): Promise<CompileResult> {
  const key = compileKey(request);
  if (key !== undefined) {
    const hit = await recallCompile(request.dirs.dataDir, key);
    if (hit !== undefined) return hit;
  }
  const { compileProfile } = await import('../../config/compile/compile-profile.js');
  const result = await compileProfile(request);
  if (key !== undefined && result.stored !== undefined && compileKey(request) === key) {
    await rememberCompile(request.dirs.dataDir, key, result);
  }
  return result;
}
