/**
 * SIGHUP (the terminal closing) ends a session like `session stop`, with real `codex exec`: Codex,
 * the participant's app-server and every Tool MCP server (each in its own process group) end, no
 * process carrying the session's marker survives, and the session is recorded `stopped` with a
 * non-zero exit code.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { startWorkingTeam, useLeadWorkerSession } from '../../support/lead-worker-session.js';
import {
  processesMentioning,
  running,
  waitFor,
  HeldRequests,
  commandOf,
} from '../../support/world.js';

const held = new HeldRequests();

const scripted = useLeadWorkerSession('hangup', held);

describe('SIGHUP', () => {
  it('ends Codex, the participant and every MCP server and records the session stopped', async () => {
    const supervisor = await startWorkingTeam(scripted);
    const [id = ''] = await readdir(join(scripted.world.stateDir, 'sessions'));
    const marker = `CODEX_MMO_SESSION=${id}`;
    const marked = await processesMentioning(marker);
    const commands = await Promise.all(marked.map(commandOf));
    const servers = marked.filter((_, i) => commands[i]?.includes('echo-server'));
    const codex = marked.filter(
      (_, i) => /codex/.test(commands[i] ?? '') && !commands[i]?.includes('echo-server'),
    );
    // the lead's and the worker's servers, the lead's Codex and the worker's app-server at least
    expect(servers.length).toBe(2);
    expect(codex.length).toBeGreaterThanOrEqual(2);

    supervisor.kill('SIGHUP');
    const ended = await supervisor.done;
    expect(ended.code).not.toBe(0);
    expect(ended.code).not.toBeNull();
    await waitFor(async () => (await processesMentioning(marker)).length === 0, 20_000);
    for (const pid of marked) expect(await running(pid), await commandOf(pid)).toBe(false);

    const record = JSON.parse(
      await readFile(join(scripted.world.stateDir, 'sessions', id, 'session.json'), 'utf8'),
    ) as { status: string; exit_code: number; processes?: { status: string }[] };
    expect(record.status).toBe('stopped');
    expect(record.exit_code).toBe(ended.code);
    expect(record.exit_code).not.toBe(0);
  }, 150_000);
});
