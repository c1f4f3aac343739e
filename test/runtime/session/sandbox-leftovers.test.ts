/**
 * While a sandboxed command runs, Codex's sandbox creates empty mount points on the host for the
 * paths it protects in each writable root (`.git`, `.codex`, `.agents`, and `.aws` on 0.171, in
 * the working directory); it removes them when the command ends or Codex gets SIGTERM, but a
 * command killed with SIGKILL leaves them there. Whatever stops a session — `session stop`,
 * `kill -9` of the supervisor — Codex is ended so that none of them is left in the operator's
 * working directory, and anything the operator had there stays untouched.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { useWorkspaceLeadSession } from '../../support/scripted-session.js';
import {
  processesMentioning,
  runInWorld,
  shellCall,
  startInWorld,
  waitFor,
} from '../../support/world.js';

const PROTECTED = ['.agents', '.aws', '.codex', '.git'];

describe.each(['session stop', 'kill -9'] as const)('a session ended by %s', (how) => {
  const scripted = useWorkspaceLeadSession('leftovers');

  it('leaves no sandbox mount point in the working directory', async () => {
    const { world } = scripted;
    // the operator's own file, and an `.agents` directory of theirs, stay as they are
    await writeFile(join(world.workDir, 'notes.txt'), 'mine\n');
    await mkdir(join(world.workDir, '.agents'));
    scripted.script = (request) =>
      request.toolOutputs.length === 0
        ? [shellCall('sleep 60')]
        : [{ type: 'message', text: 'done' }];
    const session = startInWorld(world, ['exec', world.packDir, 'wait']);
    // the command runs: the sandbox has made its mount points on the host
    await waitFor(() => existsSync(join(world.workDir, '.git')), 60_000);
    if (how === 'session stop') {
      const ids = await readdir(join(world.stateDir, 'sessions'));
      const stop = await runInWorld(world, ['session', 'stop', ids[0] ?? '']);
      expect(stop.code, stop.stderr).toBe(0);
    } else {
      session.kill('SIGKILL');
    }
    await session.done;
    // the watchdog (after kill -9) or the stop has ended every process of the session
    await waitFor(async () => (await processesMentioning(world.root)).length === 0, 30_000).catch(
      async (error: unknown) => {
        const left = await processesMentioning(world.root);
        const { execFileSync } = await import('node:child_process');
        throw new Error(
          `still running: ${execFileSync('ps', ['-o', 'pid,pgid,ppid,stat,args', '-p', left.join(',')]).toString()}`,
          { cause: error },
        );
      },
    );
    await waitFor(
      async () =>
        (await readdir(world.workDir)).filter((n) => PROTECTED.includes(n)).join() === '.agents',
      30_000,
    ).catch(() => undefined);
    expect((await readdir(world.workDir)).sort()).toEqual(['.agents', 'notes.txt']);
  }, 180_000);
});
