/**
 * A per-fragment cache of validation results (IO shell), so that `tool-mcp list` and `validate`
 * skip parsing and validating fragments that have not changed. An entry is keyed by a SHA-256 of
 * a salt (the codex-mmo version and a fingerprint of its code), the fragment's path and its
 * bytes; a new entry of a fragment path replaces the older ones. Only results without errors are stored (a literal credential is always an error), and a
 * missing, unreadable, corrupt or mismatched entry is simply recomputed: the cache never changes
 * a result. Readiness (environment, PATH, credentials) is never cached.
 */
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { KeyPositions, type PositionNode } from '../toml/key-positions.js';
import type { FragmentSource } from './types.js';
import type { FragmentResult } from './validate-fragment.js';

/** Where entries live and what every key includes besides the fragment. */
export interface FragmentCache {
  /** Directory of the entries (created on first write, mode 0700). */
  readonly dir: string;
  /** Changes whenever the code that validates fragments may have changed (see `codeFingerprint`). */
  readonly salt: string;
}

/** Format of an entry file; an entry of another format is ignored. */
const FORMAT = 1;

/** The cache key of a fragment: hex SHA-256 over the salt, the path and the bytes. */
export function fragmentCacheKey(cache: FragmentCache, source: FragmentSource): string {
  return createHash('sha256')
    .update(`codex-mmo fragment cache ${String(FORMAT)}\0${cache.salt}\0${source.file}\0`)
    .update(source.bytes)
    .digest('hex');
}

/** Entries of one fragment path share this file-name prefix, so a newer entry replaces older ones. */
function pathPrefix(file: string): string {
  return createHash('sha256').update(file).digest('hex').slice(0, 16);
}

/** The file of a fragment's entry: `<path prefix>-<key>.json`. */
export function fragmentCacheFile(cache: FragmentCache, source: FragmentSource): string {
  return join(cache.dir, `${pathPrefix(source.file)}-${fragmentCacheKey(cache, source)}.json`);
}

/** The cached result of a fragment, or undefined when there is none usable. Never throws. */
export function readCachedFragment(
  cache: FragmentCache,
  source: FragmentSource,
): FragmentResult | undefined {
  try {
    const key = fragmentCacheKey(cache, source);
    const entry: unknown = JSON.parse(readFileSync(fragmentCacheFile(cache, source), 'utf8'));
    return resultOfEntry(entry, key, source.file);
  } catch {
    return undefined;
  }
}

/**
 * Stores a fragment's result when it parsed and has no errors and stores exactly (finite
 * numbers only). A failure to write is ignored: the next run recomputes.
 */
export function writeCachedFragment(
  cache: FragmentCache,
  source: FragmentSource,
  result: FragmentResult,
): void {
  if (!result.parsed || result.diagnostics.some((d) => d.severity === 'error')) return;
  try {
    const key = fragmentCacheKey(cache, source);
    const text = JSON.stringify(
      {
        format: FORMAT,
        key,
        result: {
          file: result.file,
          parsed: result.parsed,
          servers: result.servers,
          diagnostics: result.diagnostics,
          positions: result.positions?.trie(),
        },
      },
      exactJson,
    );
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const file = fragmentCacheFile(cache, source);
    const temporary = `${file}.${String(process.pid)}.tmp`;
    writeFileSync(temporary, text, { mode: 0o600 });
    renameSync(temporary, file);
    // older entries of this fragment path (other bytes, another build) are not needed any more
    const prefix = `${pathPrefix(source.file)}-`;
    for (const name of readdirSync(cache.dir)) {
      if (name.startsWith(prefix) && name.endsWith('.json') && join(cache.dir, name) !== file) {
        unlinkSync(join(cache.dir, name));
      }
    }
  } catch {
    // an entry that cannot be written is recomputed next time
  }
}

/** A JSON replacer that refuses values JSON would not give back as they were. */
function exactJson(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0))) {
    throw new Error('not exactly representable in JSON');
  }
  if (typeof value === 'function' || typeof value === 'symbol') {
    throw new Error('not representable in JSON');
  }
  return value;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The result an entry holds, when it is well-formed and for this key and file. */
function resultOfEntry(entry: unknown, key: string, file: string): FragmentResult | undefined {
  if (!isObject(entry) || entry.format !== FORMAT || entry.key !== key) return undefined;
  const result = entry.result;
  if (!isObject(result) || result.file !== file || result.parsed !== true) return undefined;
  const { servers, diagnostics, positions } = result;
  if (!Array.isArray(servers) || !servers.every(isServer)) return undefined;
  if (!Array.isArray(diagnostics) || !diagnostics.every(isDiagnostic)) return undefined;
  const trie = positions === undefined ? undefined : reviveNode(positions);
  if (positions !== undefined && trie === undefined) return undefined;
  return {
    file,
    parsed: true,
    servers: servers as FragmentResult['servers'],
    diagnostics: diagnostics as FragmentResult['diagnostics'],
    ...(trie !== undefined ? { positions: new KeyPositions(trie) } : {}),
  };
}

function isServer(value: unknown): boolean {
  if (!isObject(value) || typeof value.id !== 'string' || typeof value.ok !== 'boolean') {
    return false;
  }
  if (typeof value.line !== 'number' || typeof value.column !== 'number') return false;
  return value.ok ? isObject(value.definition) : value.definition === undefined;
}

function isDiagnostic(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.code === 'string' &&
    typeof value.message === 'string' &&
    (value.severity === 'warning' || value.severity === 'info')
  );
}

/** A position trie as stored, rebuilt with prototype-less key dictionaries; undefined if malformed. */
function reviveNode(value: unknown): PositionNode | undefined {
  if (!isObject(value)) return undefined;
  const node: PositionNode = {};
  const { position, keys, items } = value;
  if (position !== undefined) {
    if (!isObject(position)) return undefined;
    const { line, column } = position;
    if (typeof line !== 'number' || typeof column !== 'number') return undefined;
    node.position = { line, column };
  }
  if (keys !== undefined) {
    if (!isObject(keys)) return undefined;
    const own = Object.create(null) as Record<string, PositionNode>;
    for (const [name, child] of Object.entries(keys)) {
      const revived = reviveNode(child);
      if (revived === undefined) return undefined;
      own[name] = revived;
    }
    node.keys = own;
  }
  if (items !== undefined) {
    if (!Array.isArray(items)) return undefined;
    const list: PositionNode[] = [];
    for (const [index, child] of items.entries()) {
      // JSON writes the holes of a sparse array as null
      if (child === null) continue;
      const revived = reviveNode(child);
      if (revived === undefined) return undefined;
      list[index] = revived;
    }
    node.items = list;
  }
  return node;
}

/**
 * A fingerprint of the installed code that validates fragments: the size and modification time
 * of this module's file and of every file of the registry, toml and diagnostics modules beside it
 * (one file when bundled), and of the TOML parser. A rebuild or an upgrade changes it.
 */
export function codeFingerprint(): string {
  const here = fileURLToPath(import.meta.url);
  const root = dirname(dirname(here));
  const files = [here];
  for (const folder of ['registry', 'toml', 'diagnostics']) {
    try {
      for (const name of readdirSync(join(root, folder)).sort())
        files.push(join(root, folder, name));
    } catch {
      // not beside this module (a bundle)
    }
  }
  try {
    files.push(fileURLToPath(import.meta.resolve('smol-toml')));
  } catch {
    // bundled
  }
  return files
    .map((file) => {
      try {
        const stat = statSync(file);
        return `${file}:${String(stat.size)}:${String(stat.mtimeMs)}`;
      } catch {
        return `${file}:-`;
      }
    })
    .join('\n');
}
