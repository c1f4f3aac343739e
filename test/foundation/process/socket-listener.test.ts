/**
 * A client's check of who listens on a session socket: another process of the user bound at the
 * path is refused (and named), its own stamp accepted; a socket in a directory open to others,
 * behind a symbolic link or of another owner is refused; a reused pid and an unreadable socket
 * table fail closed; and the server side makes its directory private or refuses it.
 */
import { chmod, lstat, mkdir, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { ListenerNotVerifiedError } from '../../../src/foundation/errors.js';
import {
  ensurePrivateDir,
  listenPrivateSocket,
  privateDirProblem,
} from '../../../src/foundation/process/private-socket.js';
import {
  checkSocketPlace,
  connectVerified,
  thisProcess,
} from '../../../src/foundation/process/socket-listener.js';
import { processStart } from '../../../src/foundation/process/tcp-peer.js';
import { startFakeListener, type FakeListener } from '../../support/fake-listener.js';
import { tmpDir } from '../../support/tmp.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fake(path: string): Promise<FakeListener> {
  const listener = await startFakeListener(path);
  cleanups.push(() => listener.stop());
  return listener;
}

async function listening(path: string): Promise<Server> {
  const server = await listenPrivateSocket(path, (socket) => {
    socket.on('error', () => undefined);
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  return server;
}

async function refusal(promise: Promise<unknown>): Promise<ListenerNotVerifiedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ListenerNotVerifiedError);
  expect((error as ListenerNotVerifiedError).code).toBe('listener-not-verified');
  return error as ListenerNotVerifiedError;
}

describe('connectVerified', () => {
  it('accepts the expected process, and refuses another process of the user bound at the path', async () => {
    const path = join(await tmpDir('codex-mmo-listener-'), 's.sock');
    await listening(path);
    const own = await connectVerified(path, thisProcess());
    own.destroy();

    // another process replaces the socket: the same user, the same private directory
    const other = await fake(path);
    const refused = await refusal(connectVerified(path, thisProcess()));
    expect(refused.message).toContain(`held by process ${String(other.pid)}`);
    expect(refused.message).toContain('nothing was sent to it');
    expect(refused.socketPath).toBe(path);
    // the check names the real holder: with its own stamp the same listener passes
    const start = processStart(other.pid);
    const accepted = await connectVerified(path, { pid: other.pid, start });
    accepted.destroy();
  });

  it('refuses a pid whose start time is not the expected one (a reused pid)', async () => {
    const path = join(await tmpDir('codex-mmo-listener-'), 's.sock');
    await listening(path);
    const stale = { pid: process.pid, start: `${thisProcess().start ?? '0'}1` };
    expect((await refusal(connectVerified(path, stale))).message).toContain('is no longer running');
    const unknown = { pid: process.pid, start: undefined };
    expect((await refusal(connectVerified(path, unknown))).message).toContain(
      'start time of the expected process',
    );
  });

  it('fails closed when the kernel socket table cannot be read', async () => {
    const path = join(await tmpDir('codex-mmo-listener-'), 's.sock');
    await listening(path);
    const saved = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      expect((await refusal(connectVerified(path, thisProcess()))).message).toContain(
        'cannot be read',
      );
    } finally {
      process.env.PATH = saved;
    }
  });

  it('rejects with the connection error, not a refusal, when nothing is at the path', async () => {
    const path = join(await tmpDir('codex-mmo-listener-'), 'gone.sock');
    const error = await connectVerified(path, thisProcess()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.toBeInstanceOf(ListenerNotVerifiedError);
    expect((error as NodeJS.ErrnoException).code).toBe('ENOENT');
  });
});

describe('checkSocketPlace', () => {
  it('refuses a socket in a directory others may enter, even with the right listener', async () => {
    const dir = await tmpDir('codex-mmo-listener-');
    const path = join(dir, 's.sock');
    await listening(path);
    await chmod(dir, 0o755);
    const refused = await refusal(connectVerified(path, thisProcess()));
    expect(refused.message).toContain('has mode 0755, not 0700');
    await chmod(dir, 0o700);
    await checkSocketPlace(path);
  });

  it('refuses a socket whose directory is a symbolic link', async () => {
    const dir = await tmpDir('codex-mmo-listener-');
    const real = join(dir, 'real');
    await mkdir(real, { mode: 0o700 });
    await listening(join(real, 's.sock'));
    await symlink(real, join(dir, 'link'));
    const refused = await refusal(checkSocketPlace(join(dir, 'link', 's.sock')));
    expect(refused.message).toContain('is a symbolic link');
  });

  it('refuses a file that is not a socket', async () => {
    const dir = await tmpDir('codex-mmo-listener-');
    await mkdir(join(dir, 'plain'));
    await expect(checkSocketPlace(join(dir, 'plain'))).rejects.toThrow(/not a socket/);
  });

  it('refuses a directory and a socket of another owner', async () => {
    const uid = process.getuid?.() ?? 0;
    const dir = await tmpDir('codex-mmo-listener-');
    const path = join(dir, 's.sock');
    await listening(path);
    if (uid === 0) {
      // as root the owner can be changed for real
      const { chown } = await import('node:fs/promises');
      await chown(path, 65534, 65534);
      expect((await refusal(checkSocketPlace(path))).message).toContain(
        'the socket belongs to uid 65534',
      );
      await chown(path, 0, 0);
      await chown(dir, 65534, 65534);
      expect((await refusal(checkSocketPlace(path))).message).toContain('belongs to uid 65534');
      await chown(dir, 0, 0);
    } else {
      // a user cannot give a file away: a directory of root's stands for another owner's
      expect(await privateDirProblem('/')).toContain(`belongs to uid 0, not to this user`);
    }
    await checkSocketPlace(path);
  });
});

describe('the listening side', () => {
  it('makes a new socket directory 0700 and narrows its own one to 0700', async () => {
    const root = await tmpDir('codex-mmo-listener-');
    const fresh = join(root, 'codex-mmo-20260101T000000000Z-0000abcd');
    expect(await ensurePrivateDir(fresh)).toBe(true);
    expect((await lstat(fresh)).mode & 0o777).toBe(0o700);
    const open = join(root, 'open');
    await mkdir(open, { mode: 0o755 });
    await chmod(open, 0o755);
    expect(await ensurePrivateDir(open)).toBe(false);
    expect((await lstat(open)).mode & 0o777).toBe(0o700);
  });

  it('refuses to listen behind a symbolic link, and removes a session socket directory it empties', async () => {
    const root = await tmpDir('codex-mmo-listener-');
    await mkdir(join(root, 'real'), { mode: 0o700 });
    await symlink(join(root, 'real'), join(root, 'link'));
    await expect(
      listenPrivateSocket(join(root, 'link', 's.sock'), () => undefined),
    ).rejects.toThrow(/refusing to listen in .*link: .* is a symbolic link/);

    const dir = join(root, 'codex-mmo-20260101T000000000Z-0000abcd');
    const server = await listenPrivateSocket(join(dir, 'mesh.sock'), () => undefined);
    await new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    await expect
      .poll(() =>
        lstat(dir).then(
          () => 'there',
          () => 'gone',
        ),
      )
      .toBe('gone');
  });
});

// a plain `net` server stands for a listener that did not make its directory private
describe('a listener in an open directory', () => {
  it('is refused by the client before anything is sent', async () => {
    const dir = await tmpDir('codex-mmo-listener-');
    await chmod(dir, 0o755);
    const path = join(dir, 'open.sock');
    const received: Buffer[] = [];
    const server = createServer((socket) => {
      socket.on('data', (d: Buffer) => received.push(d));
    });
    await new Promise<void>((resolve) => server.listen(path, resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => {
            resolve();
          });
        }),
    );
    await refusal(connectVerified(path, thisProcess()));
    expect(received).toEqual([]);
  });
});
