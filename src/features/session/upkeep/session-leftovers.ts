/**
 * What a session leaves on disk while it runs and must not outlive it: its Unix sockets (mesh,
 * gateway, approvals — in the session directory or, for long paths, in the temporary directory),
 * token files, the approval key, and the `auth.json` copies and Codex state in its homes. One list, used by the
 * supervisor, `session stop`, the watchdog and the clean-up of abandoned sessions.
 */
import { readdir, rm, rmdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { gatewaySocketPath } from '../../../runtime/gateway/gateway-socket.js';
import { clearEndedHomes } from '../../../runtime/session/codex-home.js';
import type { SessionRecord } from '../../../runtime/session/session-record.js';
import { sessionPaths } from '../../../runtime/session/session-store.js';

/** File names in a session directory that only a running session may have. */
export const RUNNING_ONLY_SUFFIXES: readonly string[] = ['.sock', '.token', '.key'];

/** The socket paths of a session, wherever they were placed. */
export function sessionSockets(record: SessionRecord): string[] {
  return [
    record.mesh_socket,
    gatewaySocketPath(record.mesh_socket),
    ...(record.approvals_socket !== undefined ? [record.approvals_socket] : []),
  ];
}

/**
 * Removes the session's sockets and token files (and the per-session temporary directory of a
 * socket placed there, once empty) and clears its homes. Never fails.
 */
export async function removeSessionLeftovers(dir: string, record: SessionRecord): Promise<void> {
  const inDir = await readdir(dir).catch(() => [] as string[]);
  const files = [
    ...sessionSockets(record),
    ...inDir
      .filter((name) => RUNNING_ONLY_SUFFIXES.some((suffix) => name.endsWith(suffix)))
      .map((name) => join(dir, name)),
  ];
  await Promise.all(files.map((file) => unlink(file).catch(() => undefined)));
  for (const socket of sessionSockets(record)) {
    // `<tmp>/codex-mmo-<id>/approvals.sock`: the directory is the session's own
    const parent = dirname(socket);
    if (parent !== dir && basename(parent) === `codex-mmo-${record.id}`) {
      await rmdir(parent).catch(() => undefined);
    }
  }
  await rm(join(dir, 'tokens'), { recursive: true, force: true }).catch(() => undefined);
  await clearEndedHomes(sessionPaths(dir).homes);
}
