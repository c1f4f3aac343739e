/**
 * A server's stderr log is whole when the session is over: the last line a server writes as the
 * gateway ends it is in `logs/gateway-<process>-<server>.stderr.log` by the time `exec` returns,
 * on both Codex versions.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { functionCall } from '../../support/scripted-model-fixture.js';
import { useScriptedSession } from '../../support/scripted-session.js';
import { echoServer, onlySession, profileToml, runInWorld } from '../../support/world.js';

const LAST_WORDS = 'last-words-7c7c';

const scripted = useScriptedSession(
  {
    registry: () => echoServer('notes', { args: ['--stderr-at-end', LAST_WORDS] }),
    profile: profileToml('stderr-log', 'lead', { lead: { grants: { notes: {} } } }),
  },
  (request) =>
    request.toolOutputs.length === 0
      ? [functionCall('mcp__notes', 'echo', { text: 'hi' })]
      : [{ type: 'message', text: 'DONE' }],
);

describe("a server's stderr log", () => {
  it('holds the last line the server wrote as the session ended', async () => {
    const result = await runInWorld(scripted.world, ['exec', scripted.world.packDir, 'GO']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('DONE');
    const { dir } = await onlySession(scripted.world);
    const log = await readFile(join(dir, 'logs', 'gateway-root-notes.stderr.log'), 'utf8');
    expect(log).toContain(LAST_WORDS);
  }, 120_000);
});
