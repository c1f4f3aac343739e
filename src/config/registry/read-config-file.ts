/**
 * Reads one operator-owned configuration file safely: only regular files are read (a FIFO,
 * socket or device is never opened for reading, so nothing can hang), sizes are bounded, and
 * every failure comes back as data describing why, never as an exception.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/** Largest configuration file codex-mmo reads (fragments, credentials.env). */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

export type ReadConfigFileResult =
  | { readonly kind: 'ok'; readonly bytes: Uint8Array; readonly mode: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'not-a-file'; readonly what: string }
  | { readonly kind: 'too-large'; readonly size: number; readonly limit: number }
  | { readonly kind: 'unreadable'; readonly reason: string };

/** What kind of non-regular file a stat result describes, in words. */
function describeKind(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EISDIR':
      return 'it is a directory';
    case 'EIO':
      return 'input/output error';
    default:
      return typeof code === 'string' ? code : 'it could not be read';
  }
}

/**
 * Opens `file` without blocking (a named pipe opens but is then refused by the regular-file
 * check), follows symbolic links, and reads at most `limit` bytes of a regular file. The file
 * system calls are synchronous: configuration files are small, and a command reading twenty of
 * them finishes sooner without a thread-pool round trip per call.
 */
export function readConfigFile(
  file: string,
  limit: number = MAX_CONFIG_FILE_BYTES,
): Promise<ReadConfigFileResult> {
  return Promise.resolve(readConfigFileSync(file, limit));
}

/** Synchronous form of `readConfigFile`. */
export function readConfigFileSync(
  file: string,
  limit: number = MAX_CONFIG_FILE_BYTES,
): ReadConfigFileResult {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    return { kind: 'unreadable', reason: reasonOf(error) };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'not-a-file', what: describeKind(stats) };
    if (stats.size > limit) return { kind: 'too-large', size: stats.size, limit };
    // room for one byte past the expected size, so a file that grew after fstat is noticed
    const buffer = Buffer.allocUnsafe(Math.min(stats.size, limit) + 1);
    let filled = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > limit) return { kind: 'too-large', size: filled, limit };
    if (filled > stats.size) return { kind: 'unreadable', reason: 'it changed while being read' };
    return { kind: 'ok', bytes: buffer.subarray(0, filled), mode: stats.mode };
  } catch (error) {
    return { kind: 'unreadable', reason: reasonOf(error) };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // nothing useful to do: the file was only read
    }
  }
}

/** Human size such as `5.0 MiB` or `512 bytes`. */
export function formatBytes(size: number): string {
  if (size >= 1024 * 1024) return `${(size / (1024 * 1024)).toFixed(1)} MiB`;
  if (size >= 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${size} bytes`;
}

/** Largest remembered entry codex-mmo reads (`<data>/codex-versions/`, `<data>/machine-probes/`). */
export const MAX_MEMO_ENTRY_BYTES = 64 * 1024;

/**
 * A small JSON file read as `readConfigFile` reads (a regular file only, its size bounded), parsed;
 * undefined when it is missing, not such a file, or not JSON: for memo entries, which are
 * simply made again.
 */
export async function readJsonEntry(file: string): Promise<unknown> {
  const read = await readConfigFile(file, MAX_MEMO_ENTRY_BYTES);
  if (read.kind !== 'ok') return undefined;
  try {
    return JSON.parse(Buffer.from(read.bytes).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
