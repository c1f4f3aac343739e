/**
 * The probed server runs in its own session, out of reach of a terminal's Ctrl-C: interrupting
 * codex-mmo while it waits for a server must still take the server's whole process group down.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

import { hangingServer, launchEnv, processGone, workspace } from '../../support/probe-helpers.js';

const RUN_CLI = resolve('test/fixtures/probe/run-cli.mjs');

async function waitFor<T>(check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('interrupting a probe', () => {
  it('kills the server group when codex-mmo gets SIGINT or SIGTERM', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const ws = await workspace();
      const pidFile = ws.path('pids.json');
      await ws.fixtureServer(
        hangingServer(pidFile),
        'startup_timeout_sec = 60\nenabled_tools = ["a"]\ndefault_tools_approval_mode = "prompt"',
      );
      const cli = spawn(
        process.execPath,
        ['--import', 'tsx', RUN_CLI, 'tool-mcp', 'probe', 'fx', '--config-dir', ws.configDir],
        { env: launchEnv(ws), stdio: 'ignore' },
      );
      const exited = new Promise<NodeJS.Signals | number | null>((done) => {
        cli.once('exit', (code, sig) => {
          done(sig ?? code);
        });
      });
      const pids = await waitFor(async () => {
        try {
          return JSON.parse(await readFile(pidFile, 'utf8')) as { pid: number; grandchild: number };
        } catch {
          return undefined;
        }
      }, 20_000);
      cli.kill(signal);
      expect(await exited).toBe(signal);
      await waitFor(
        async () =>
          (await processGone(pids.pid)) && (await processGone(pids.grandchild)) ? true : undefined,
        3000,
      );
    }
  });
});
