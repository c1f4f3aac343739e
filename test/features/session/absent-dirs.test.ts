/**
 * An operator directory that does not exist when a session starts (a machine without `~/.codex`):
 * the sandbox must create nothing at it on the host
 * (a literal deny of a missing path makes Codex's sandbox leave an empty mount-point file there,
 * which broke the next session when a command was killed), and whatever appears there during the
 * session is still unreadable to the model.
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { toolOutputText } from '../../support/scripted-model-fixture.js';
import { useWorkspaceLeadSession } from '../../support/scripted-session.js';
import { runInWorld, shellCall } from '../../support/world.js';

const LATE_CANARY = 'late-auth-canary-a8s3nt';

describe('a session whose base Codex home does not exist', () => {
  const scripted = useWorkspaceLeadSession('absent', {
    prepare: (world) => rm(world.baseCodexHome, { recursive: true, force: true }),
  });

  it('creates nothing there, and what appears there later stays unreadable', async () => {
    const { model, world } = scripted;
    const base = world.baseCodexHome;
    scripted.script = (request) => {
      const step = request.toolOutputs.length;
      if (step === 0) {
        return [shellCall(`if test -e ${base}; then echo BASE-PRESENT; else echo BASE-ABSENT; fi`)];
      }
      if (step === 1) {
        // the operator logs in to Codex while the session runs
        mkdirSync(base, { recursive: true });
        writeFileSync(join(base, 'auth.json'), `{"OPENAI_API_KEY": "${LATE_CANARY}"}\n`);
        return [shellCall(`cat ${join(base, 'auth.json')}; echo READ-DONE`)];
      }
      return [{ type: 'message', text: 'LEAD-DONE' }];
    };
    const result = await runInWorld(world, ['exec', world.packDir, 'look around']);
    expect(model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');

    const outputs = toolOutputText(model);
    expect(outputs).toContain('BASE-ABSENT');
    expect(outputs).not.toContain('BASE-PRESENT');
    expect(outputs).toContain('READ-DONE');
    // masked (Permission denied), or out of the host view's private /tmp where the world lies
    expect(outputs).toMatch(/auth\.json: (Permission denied|No such file or directory)/);
    expect(outputs).not.toContain(LATE_CANARY);
    // the operator's directory is theirs: a directory, with their file in it
    expect(statSync(base).isDirectory()).toBe(true);
  }, 240_000);
});
