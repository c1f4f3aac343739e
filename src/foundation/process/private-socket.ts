/**
 * The Unix sockets of a session (mmo_mesh broker, Tool MCP gateway, approval queue): each lives
 * in a directory private to the user (a real directory, owned by this uid, mode 0700 — made so
 * when it is new, refused when it is another's or a link), a stale socket file at the path is
 * replaced, and the socket is created under a 0077 umask and then set to 0600, so no other user
 * can connect to it even for the moment between `listen` and `chmod`.
 */
import { chmod, lstat, mkdir, rmdir, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { basename, dirname, join } from 'node:path';

import { IoError, describeError } from '../errors.js';

/**
 * The directory of a session's sockets where its own directory's path is too long for a socket
 * (`<tmp>/codex-mmo-<id>`): made 0700 by the first listener, removed by the last.
 */
export function sessionSocketDir(tmpDir: string, sessionId: string): string {
  return join(tmpDir, `codex-mmo-${sessionId}`);
}

/** A session's socket directory in the temporary directory (the session id's shape). */
function isSessionSocketDir(dir: string): boolean {
  return /^codex-mmo-\d{8}T\d{9}Z-[0-9a-f]{8}$/.test(basename(dir));
}

function ownUid(): number | undefined {
  return typeof process.getuid === 'function' ? process.getuid() : undefined;
}

/**
 * Why `dir` is not a private directory of this user (not a directory, a symbolic link, another
 * owner, any permission for group or others), or undefined when it is one.
 */
export async function privateDirProblem(dir: string): Promise<string | undefined> {
  let info;
  try {
    info = await lstat(dir);
  } catch (error) {
    return `${dir} cannot be examined (${describeError(error)})`;
  }
  if (info.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!info.isDirectory()) return `${dir} is not a directory`;
  const uid = ownUid();
  if (uid !== undefined && info.uid !== uid) {
    return `${dir} belongs to uid ${String(info.uid)}, not to this user (uid ${String(uid)})`;
  }
  if ((info.mode & 0o077) !== 0) {
    return `${dir} has mode ${(info.mode & 0o777).toString(8).padStart(4, '0')}, not 0700`;
  }
  return undefined;
}

/**
 * Makes `dir` a private directory of this user: created 0700 when missing; one of this user's
 * own is narrowed to 0700; a link, a file or another user's directory is refused (IoError).
 * Resolves with whether it was created here.
 */
export async function ensurePrivateDir(dir: string): Promise<boolean> {
  let created = false;
  try {
    await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
    await mkdir(dir, { mode: 0o700 });
    created = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new IoError(dir, `cannot create the socket directory ${dir}: ${describeError(error)}`, {
        cause: error,
      });
    }
  }
  const info = await lstat(dir).catch(() => undefined);
  const uid = ownUid();
  if (info?.isDirectory() === true && (uid === undefined || info.uid === uid)) {
    if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700).catch(() => undefined);
  }
  const problem = await privateDirProblem(dir);
  if (problem !== undefined) {
    throw new IoError(dir, `refusing to listen in ${dir}: ${problem}; remove it and start again`);
  }
  return created;
}

/**
 * Listens on `path` for connections of this user only, in a private directory (ensurePrivateDir);
 * resolves once it accepts them. When the server closes, its socket file goes, and with it a
 * session's socket directory (sessionSocketDir) once that is empty.
 */
export async function listenPrivateSocket(
  path: string,
  onConnection: (socket: Socket) => void,
): Promise<Server> {
  const dir = dirname(path);
  await ensurePrivateDir(dir);
  await unlink(path).catch(() => undefined);
  const server = createServer(onConnection);
  const previous = process.umask(0o077);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    process.umask(previous);
  }
  await chmod(path, 0o600).catch(() => undefined);
  if (isSessionSocketDir(dir)) {
    server.once('close', () => {
      void unlink(path)
        .catch(() => undefined)
        .then(() => rmdir(dir))
        .catch(() => undefined);
    });
  }
  return server;
}
