/**
 * `exec` and the Codex version: a supported Codex gets no version warning; a Codex reporting a
 * version outside the version table still runs, with exactly one `codex-version-untested`
 * warning naming the version found.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { TEST_CODEX_SERIES } from '../../support/codex-bin.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { CODEX, echoServer, profileToml, runInWorld, type World } from '../../support/world.js';

const scripted = useScriptedSession(
  {
    registry: () => echoServer('notes', { tools: 'note' }),
    profile: profileToml('vtest', 'lead', { lead: { grants: { notes: {} } } }),
  },
  () => [{ type: 'message', text: 'all done' }],
);

const untested = (stderr: string): number =>
  stderr.split('warning[codex-version-untested]').length - 1;

describe(`Codex ${TEST_CODEX_SERIES}: exec and the version table`, () => {
  it(`Codex ${TEST_CODEX_SERIES}: a supported Codex runs without a version warning`, async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'hello']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('all done');
    expect(untested(result.stderr)).toBe(0);
  });

  it(`Codex ${TEST_CODEX_SERIES}: a version outside the table runs with one codex-version-untested warning`, async () => {
    const wrapper = join(scripted.world.root, 'codex-wrapper');
    await writeFile(
      wrapper,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "codex-cli 0.160.0"; exit 0; fi\nexec ${JSON.stringify(CODEX)} "$@"\n`,
      { mode: 0o755 },
    );
    const wrapped: World = {
      ...scripted.world,
      dirArgs: scripted.world.dirArgs.map((a) => (a === CODEX ? wrapper : a)),
    };
    const result = await runInWorld(wrapped, ['exec', scripted.world.packDir, 'hello']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('all done');
    expect(untested(result.stderr)).toBe(1);
    expect(result.stderr).toContain(`Codex 0.160.0 at ${wrapper} is not a supported version`);

    // with --json the warning is one JSON diagnostic on stderr; stdout stays the event stream
    const json = await runInWorld(wrapped, ['exec', scripted.world.packDir, 'hello', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const warnings = json.stderr
      .split('\n')
      .filter((line) => line.startsWith('{"'))
      .map((line) => JSON.parse(line) as { code?: string; severity?: string })
      .filter((d) => d.code === 'codex-version-untested');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.severity).toBe('warning');
    for (const line of json.stdout.split('\n').filter((l) => l !== '')) {
      expect((JSON.parse(line) as { code?: string }).code).toBeUndefined();
    }
  });
});
