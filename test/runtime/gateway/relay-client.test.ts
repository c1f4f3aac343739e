/**
 * The relay presents its one-time token only on a socket of this user in a private directory of
 * this user: a socket in a directory others may enter is refused before the token is sent.
 */
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

import { describe, expect, it } from 'vitest';

import { runRelay } from '../../../src/runtime/gateway/relay-client.js';
import { startFakeListener } from '../../support/fake-listener.js';
import { tmpDir } from '../../support/tmp.js';

describe('runRelay', () => {
  it('sends no token to a socket in a directory others may enter', async () => {
    const dir = await tmpDir('codex-mmo-relay-');
    const path = join(dir, 'gateway.sock');
    const fake = await startFakeListener(path);
    try {
      await chmod(dir, 0o755);
      const said: string[] = [];
      const token = 'relay-token-0e0e0e0e0e0e0e0e';
      const code = await runRelay({
        socketPath: path,
        server: 'files',
        process: 'root',
        token,
        stdin: new PassThrough(),
        stdout: new PassThrough(),
        stderr: (text) => said.push(text),
      });
      expect(code).toBe(1);
      expect(said.join('')).toContain('has mode 0755, not 0700');
      expect(said.join('')).not.toContain(token);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fake.accepted()).toBe(0);
      expect(fake.received()).toBe('');
    } finally {
      await fake.stop();
    }
  });
});
