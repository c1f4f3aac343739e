/**
 * `codex-mmo session calls ID [--follow] [--json]`: the Tool MCP calls of a session as the
 * gateway recorded them in `<session>/calls.jsonl` — who called (process, role, thread), which
 * server and tool, the outcome and why, how long it took. ID may be a unique prefix. Every text
 * field is shown terminal-safe (one call, one line); `--json` keeps the exact text.
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import {
  effectiveRecord,
  isActiveStatus,
  locateSession,
  readSessionRecord,
} from '../../runtime/session/index.js';
import { readCalls, type CallRecord } from '../../runtime/gateway/index.js';
import { isAlive } from '../../foundation/process/index.js';
import { parseCommand, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo session calls ID [--follow] [--json]

Show every Tool MCP call of a session, in order: time, calling process and role, thread (and
parent thread for a native sub-agent), server, tool (or the MCP method of another request),
outcome (ok, error, blocked, denied), the reason of a refusal or failure, and its duration.
Calls refused before the gateway are listed too: a tool the model was not offered (tool-not-
offered), an approval request outside the calling role's grant (tool-not-granted-to-role), an
approval denied, expired or closed by the session's end (approval-denied, approval-expired,
session-ended). Arguments are recorded only as size, digest and a masked preview; no credential
value is ever recorded. ID may be a unique prefix.

Options:
  --follow             keep printing new calls until the session ends (with --json, one JSON
                       object per call and line)
  --json               print {"calls": [...]}`;

/** How often a followed session's file is read again. */
const FOLLOW_POLL_MS = 200;

/** One call's cells, each terminal-safe: no cell holds a line break, tab or terminal sequence. */
export function callRow(call: CallRecord): string[] {
  const cells = [
    call.time,
    call.process,
    call.role ?? '-',
    call.server,
    call.tool !== '' ? call.tool : (call.method ?? '-'),
    call.outcome,
    call.reason ?? '-',
    `${String(call.duration_ms)} ms`,
    call.parent_thread !== null
      ? `${call.thread ?? '-'} (parent ${call.parent_thread})`
      : (call.thread ?? '-'),
  ];
  return cells.map((cell) => terminalSafe(cell));
}

const HEADER = [
  'TIME',
  'PROCESS',
  'ROLE',
  'SERVER',
  'TOOL',
  'OUTCOME',
  'REASON',
  'DURATION',
  'THREAD',
];

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, { follow: { type: 'boolean' } }, { min: 1, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  const dir = await locateSession(cmd.dirs.stateDir, cmd.positionals[0] ?? '');
  if (cmd.values.follow !== true) {
    const { calls } = await readCalls(dir);
    if (cmd.json) printJson(io, { calls });
    else if (calls.length === 0) io.stdout('No Tool MCP calls recorded.\n');
    else io.stdout(formatTable(HEADER, calls.map(callRow)));
    return EXIT_OK;
  }
  let offset = 0;
  let headerShown = false;
  for (;;) {
    const active = isActiveStatus(effectiveRecord(await readSessionRecord(dir), isAlive).status);
    const read = await readCalls(dir, offset);
    offset = read.offset;
    for (const call of read.calls) {
      if (cmd.json) io.stdout(`${JSON.stringify(call)}\n`);
      else {
        if (!headerShown) io.stdout(`${HEADER.join('\t')}\n`);
        headerShown = true;
        io.stdout(`${callRow(call).join('\t')}\n`);
      }
    }
    if (!active) return EXIT_OK;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}
