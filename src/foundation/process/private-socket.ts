/**
 * The Unix sockets of a session (mmo_mesh broker, Tool MCP gateway, approval queue): a stale
 * socket file at the path is replaced, and the socket is created under a 0077 umask and then set
 * to 0600, so no other user can connect to it even for the moment between `listen` and `chmod`.
 */
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';

/** Listens on `path` for connections of this user only; resolves once it accepts them. */
export async function listenPrivateSocket(
  path: string,
  onConnection: (socket: Socket) => void,
): Promise<Server> {
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
  return server;
}
