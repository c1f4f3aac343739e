/**
 * A session starts Codex as its native binary: while a root and a participant work, every Codex
 * process carrying the session's marker runs the platform package's binary, and no Node process of
 * the npm launcher (`bin/codex.js`) is kept above any of them.
 */
import { readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { resolveCodexLaunch } from '../../../src/runtime/codex/native-codex.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import {
  CODEX,
  echoServer,
  HeldRequests,
  processesMentioning,
  profileToml,
  spawnWorkerThenHold,
  startInWorld,
  waitFor,
  commandOf,
} from '../../support/world.js';

const held = new HeldRequests();

const scripted = useScriptedSession(
  {
    registry: echoServer('lead_srv', { tools: 'note' }),
    profile: profileToml('native', 'lead', {
      lead: { spawn: ['worker'], control: ['worker'], grants: { lead_srv: {} } },
      worker: { grants: {} },
    }),
  },
  spawnWorkerThenHold(held),
  {
    release: () => {
      held.releaseAll();
    },
  },
);

describe('Codex started directly', () => {
  it('runs the native binary for the root and the participant, with no launcher above them', async () => {
    const native = (await resolveCodexLaunch(CODEX)).command;
    expect(native).not.toBe(CODEX);
    const supervisor = startInWorld(scripted.world, [
      'exec',
      scripted.world.packDir,
      'SPAWN then hang',
    ]);
    try {
      await waitFor(
        () =>
          scripted.model.requests.some((r) =>
            r.developerTexts.some((t) => t.includes('ROLE-WORKER')),
          ),
        90_000,
      );
      const [id = ''] = await readdir(join(scripted.world.stateDir, 'sessions'));
      const marked = await processesMentioning(`CODEX_MMO_SESSION=${id}`);
      const commands = await Promise.all(marked.map(commandOf));
      const executables = await Promise.all(
        marked.map((pid) => readlink(`/proc/${pid}/exe`).catch(() => '')),
      );
      expect(commands.filter((c) => c.includes('codex.js'))).toEqual([]);
      // the root's Codex and the worker's app-server
      expect(executables.filter((exe) => exe === native).length).toBeGreaterThanOrEqual(2);
    } finally {
      supervisor.kill('SIGTERM');
      await supervisor.done;
    }
  });
});
