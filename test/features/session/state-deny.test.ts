/**
 * The state dir is kept from the model's shell, with real `codex exec`: an earlier session's
 * process home and a file that appears in another home while a command runs stay unreadable (a
 * deny that Codex expands into a list of files before each command would miss that file), the
 * state dir cannot be listed (or, behind the container's masks, shows only the way to the
 * process's own home), and the shell still works: sandboxed commands run and `apply_patch`
 * through the shell still edits the working directory.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { toolOutputText } from '../../support/scripted-model-fixture.js';
import { useWorkspaceLeadSession } from '../../support/scripted-session.js';
import { runInWorld, shellCall } from '../../support/world.js';

const OLD_CANARY = 'old-home-canary-s7a7e1';
const LATE_CANARY = 'late-rollout-canary-s7a7e2';

describe('a session shell against the state dir', () => {
  const scripted = useWorkspaceLeadSession('state');

  it('can read nothing in it, not even what appears there during a command, and still works', async () => {
    const { model, world } = scripted;
    // an earlier session kept on disk, with a process home
    const oldHome = join(world.stateDir, 'sessions', '20260101-000000-old0', 'homes', 'lead');
    mkdirSync(join(oldHome, 'tmp'), { recursive: true });
    writeFileSync(join(oldHome, 'auth.json'), `{"OPENAI_API_KEY": "${OLD_CANARY}"}\n`);
    writeFileSync(join(oldHome, 'tmp', 'helper'), `${OLD_CANARY}\n`);
    const late = join(oldHome, 'rollout-late.jsonl');
    const homes = join(world.stateDir, 'sessions', '*', 'homes', '*');
    const patch = [
      "apply_patch <<'EOF'",
      '*** Begin Patch',
      '*** Add File: patched.txt',
      '+PATCHED-BY-SHELL',
      '*** End Patch',
      'EOF',
    ].join('\n');
    scripted.script = (request) => {
      const step = request.toolOutputs.length;
      if (step === 0) {
        // the file appears once the command runs in its sandbox, and the command waits for it
        const started = join(world.workDir, 'started');
        const go = join(world.workDir, 'go');
        const poll = setInterval(() => {
          if (!existsSync(started)) return;
          clearInterval(poll);
          writeFileSync(late, `${LATE_CANARY}\n`);
          writeFileSync(go, '');
        }, 100);
        return [
          shellCall(
            `echo SANDBOX-OK; touch ${started}; ` +
              `for i in $(seq 300); do test -e ${go} && break; sleep 0.1; done; ` +
              `cat ${late}; echo LATE-DONE`,
          ),
        ];
      }
      if (step === 1) {
        return [
          shellCall(
            `cat ${join(oldHome, 'auth.json')} ${join(oldHome, 'tmp', 'helper')}; ` +
              `cat ${join(homes, 'config.toml')}; ls ${world.stateDir}; ` +
              `find ${world.stateDir} -type f -exec cat {} +; echo READS-DONE`,
          ),
        ];
      }
      if (step === 2) return [shellCall(patch)];
      return [{ type: 'message', text: 'LEAD-DONE' }];
    };
    const result = await runInWorld(world, ['exec', world.packDir, 'look around']);
    expect(model.errors).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('LEAD-DONE');

    const outputs = toolOutputText(model);
    expect(outputs).toContain('SANDBOX-OK');
    expect(outputs).toContain('LATE-DONE');
    // refused by Codex's deny entries, or absent behind the container's masks, where the state
    // dir shows only the way to the process's own home
    const gone = '(Permission denied|No such file or directory)';
    expect(outputs).toMatch(new RegExp(`rollout-late\\.jsonl: ${gone}`));
    expect(outputs).toContain('READS-DONE');
    expect(outputs).toMatch(new RegExp(`auth\\.json: ${gone}`));
    expect(outputs).toMatch(new RegExp(`helper: ${gone}`));
    expect(outputs).toMatch(/cannot open directory .*state.*: Permission denied|^sessions$/m);
    expect(outputs).not.toContain(OLD_CANARY);
    expect(outputs).not.toContain(LATE_CANARY);
    // the files are there on the host: the shell was refused, they were not missing
    expect(await readFile(late, 'utf8')).toContain(LATE_CANARY);
    // the shell still edits the working directory through apply_patch
    expect(existsSync(join(world.workDir, 'patched.txt'))).toBe(true);
    expect(await readFile(join(world.workDir, 'patched.txt'), 'utf8')).toContain(
      'PATCHED-BY-SHELL',
    );
  }, 240_000);
});
