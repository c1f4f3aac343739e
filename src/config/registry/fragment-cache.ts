/**
 * A per-fragment cache of validation results (IO shell), so that `tool-mcp list` and `validate`
 * skip parsing and validating fragments that have not changed. A fragment path has one entry,
 * holding the salt (the codex-mmo version and a fingerprint of its code), the path and the
 * fragment's text; it is used only when all three equal the current ones byte for byte. Only
 * results without errors are stored (a literal credential is always an error), never a fragment
 * with a credential-shaped string anywhere in its text (a comment), and a missing,
 * unreadable, corrupt or mismatched entry is simply recomputed: the cache never changes a result.
 * Readiness (environment, PATH, credentials) is never cached. Key positions are not stored: a
 * cached fragment rescans its text for them only when a diagnostic needs one.
 */
import { mkdirSync, readFileSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writeFileAtomicSync } from '../../foundation/paths/atomic-write.js';
import { KeyPositions, scanKeyPositionsOfBytes } from '../../foundation/toml/key-positions.js';
import { isCredentialValue } from './credential-patterns.js';
import type { FragmentSource } from './types.js';
import type { FragmentResult } from './validate-fragment.js';

/** Where entries live and what every entry must match besides the fragment. */
export interface FragmentCache {
  /** Directory of the entries (created on first write, mode 0700). */
  readonly dir: string;
  /** Changes whenever the code that validates fragments may have changed (see `codeFingerprint`). */
  readonly salt: string;
}

/** Format of an entry file; an entry of another format is ignored. */
const FORMAT = 3;

/** Names of entry files; anything else in the directory is left from an older format. */
const ENTRY_NAME = /^[0-9a-f]{32}\.json$/;

/**
 * The name of a fragment path's entry: 128 bits of four FNV-1a hashes of the path. Only a name
 * (the entry itself holds the path and is checked), so a collision is at worst a miss.
 */
export function fragmentCacheName(file: string): string {
  const seeds = [0x811c9dc5, 0x050c5d1f, 0x2f9ec1e7, 0x6b43a9b5];
  return `${seeds
    .map((seed) => {
      let hash = seed;
      for (let i = 0; i < file.length; i++) {
        hash ^= file.charCodeAt(i);
        hash = Math.imul(hash, 0x01000193) >>> 0;
      }
      return hash.toString(16).padStart(8, '0');
    })
    .join('')}.json`;
}

/** The file of a fragment's entry. */
export function fragmentCacheFile(cache: FragmentCache, source: FragmentSource): string {
  return join(cache.dir, fragmentCacheName(source.file));
}

/** The cached result of a fragment, or undefined when there is none usable. Never throws. */
export function readCachedFragment(
  cache: FragmentCache,
  source: FragmentSource,
): FragmentResult | undefined {
  try {
    const entry: unknown = JSON.parse(readFileSync(fragmentCacheFile(cache, source), 'utf8'));
    return resultOfEntry(entry, cache, source);
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
    const text = Buffer.from(source.bytes).toString('utf8');
    // a fragment that parsed is UTF-8, so its text gives back its bytes; anything else is not stored
    if (!Buffer.from(text, 'utf8').equals(source.bytes)) return;
    // values with a credential's shape are errors, but a comment may hold one too: such a
    // fragment is not stored, so the cache never copies a credential-shaped string
    if (text.split('\n').some((line) => isCredentialValue(line))) return;
    const json = JSON.stringify(
      {
        format: FORMAT,
        salt: cache.salt,
        file: source.file,
        text,
        result: {
          file: result.file,
          parsed: result.parsed,
          servers: result.servers,
          diagnostics: result.diagnostics,
        },
      },
      exactJson,
    );
    mkdirSync(cache.dir, { recursive: true, mode: 0o700 });
    const file = fragmentCacheFile(cache, source);
    writeFileAtomicSync(file, json, 0o600);
    // entries of an older format are not needed any more
    for (const name of readdirSync(cache.dir)) {
      if (name.endsWith('.json') && !ENTRY_NAME.test(name)) unlinkSync(join(cache.dir, name));
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

/** The result an entry holds, when it is well-formed and for this salt, path and text. */
function resultOfEntry(
  entry: unknown,
  cache: FragmentCache,
  source: FragmentSource,
): FragmentResult | undefined {
  if (!isObject(entry) || entry.format !== FORMAT || entry.salt !== cache.salt) return undefined;
  if (entry.file !== source.file || typeof entry.text !== 'string') return undefined;
  if (!Buffer.from(entry.text, 'utf8').equals(source.bytes)) return undefined;
  const result = entry.result;
  if (!isObject(result) || result.file !== source.file || result.parsed !== true) return undefined;
  const { servers, diagnostics } = result;
  if (!Array.isArray(servers) || !servers.every(isServer)) return undefined;
  if (!Array.isArray(diagnostics) || !diagnostics.every(isDiagnostic)) return undefined;
  return {
    file: source.file,
    parsed: true,
    servers: servers as FragmentResult['servers'],
    diagnostics: diagnostics as FragmentResult['diagnostics'],
    positions: KeyPositions.deferred(() => scanKeyPositionsOfBytes(source.bytes).trie()),
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

/**
 * A fingerprint of the installed code that validates fragments. In the bundled executable (this
 * module in `dist/chunks/`, where the TOML parser is bundled too): the build's id
 * (`dist/build-id.txt`, a hash of everything `npm run build` wrote) and this chunk's size,
 * modification time and inode, which every build rewrites. Otherwise (the library as tsc wrote
 * it, or the sources): the size and modification time of this module's file, of every file of the
 * registry, toml and diagnostics modules beside it, and of the TOML parser. A rebuild, a
 * TypeScript-only rebuild or an upgrade changes it.
 */
export function codeFingerprint(): string {
  const here = fileURLToPath(import.meta.url);
  const chunk = basename(dirname(here)) === 'chunks';
  // the build's folder: dist/ above dist/chunks/, or src/ (dist/) above config/registry/
  const root = chunk ? dirname(dirname(here)) : dirname(dirname(dirname(here)));
  const files = [here];
  if (chunk) {
    let id = '-';
    try {
      id = readFileSync(join(root, 'build-id.txt'), 'utf8').trim();
    } catch {
      // a bundle without its id: the chunk's identity still changes with every build
    }
    return `build ${id}\n${statLine(here)}`;
  }
  for (const folder of ['config/registry', 'foundation/toml', 'foundation/diagnostics']) {
    try {
      for (const name of readdirSync(join(root, folder)).sort())
        files.push(join(root, folder, name));
    } catch {
      // not beside this module
    }
  }
  try {
    files.push(fileURLToPath(import.meta.resolve('smol-toml')));
  } catch {
    // not resolvable from here
  }
  return files.map(statLine).join('\n');
}

function statLine(file: string): string {
  try {
    const stat = statSync(file);
    return `${file}:${String(stat.size)}:${String(stat.mtimeMs)}:${String(stat.ino)}`;
  } catch {
    return `${file}:-`;
  }
}
