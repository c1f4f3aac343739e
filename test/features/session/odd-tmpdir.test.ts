/**
 * `exec` with `$TMPDIR` in odd places, on both Codex versions: a directory that does not exist, a
 * relative path and a path with spaces all run the session; where Codex 0.171 cannot start
 * (`/proc`: no temporary file can be made there) the failure gives Codex's own words, not only
 * its exit code.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { functionCall } from '../../support/scripted-model-fixture.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, profileToml, runInWorld } from '../../support/world.js';

const scripted = useScriptedSession(
  {
    registry: () => echoServer('notes', {}),
    profile: profileToml('odd-tmpdir', 'lead', { lead: { grants: { notes: {} } } }),
  },
  (request) =>
    request.toolOutputs.length === 0
      ? [functionCall('mcp__notes', 'echo', { text: 'hi' })]
      : [{ type: 'message', text: 'DONE' }],
);

describe('$TMPDIR in odd places', () => {
  it('runs the session wherever it points, and names what Codex said where it cannot', async () => {
    const w = scripted.world;
    const spaced = join(w.root, 'odd tmp', 't');
    await mkdir(spaced, { recursive: true });
    for (const tmp of [join(w.root, 'absent', 'tmp'), 'relative/tmp', spaced]) {
      const run = await runInWorld(w, ['exec', w.packDir, 'GO'], { TMPDIR: tmp });
      expect(run.code, `${tmp}: ${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('DONE');
    }
    // measured: 0.171 cannot open its state database with its temporary files in /proc; 0.149 can
    const failed = await runInWorld(w, ['exec', w.packDir, 'GO'], { TMPDIR: '/proc' });
    if (TEST_CODEX_SERIES === '0.149') {
      expect(failed.code, failed.stderr).toBe(0);
      return;
    }
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/failed: could not start .*; Codex said: Error: .*sqlite/);
  }, 180_000);
});
