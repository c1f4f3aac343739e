/**
 * `codex-mmo session approvals [ID] [--json]`: the approval requests waiting for a person, in one
 * session or in every running session, with process, role, kind, server, tool and masked
 * arguments. The text view is terminal-safe (a command or arguments a model wrote cannot forge a
 * line or send a terminal sequence); `--json` keeps the exact text.
 */
import { formatTable, terminalSafe } from '../../foundation/text/index.js';
import { type Diagnostic, listSessionRecords, locateSession } from '../../index.js';
import type { PendingApproval } from '../../runtime/protocol/index.js';
import { listSessionApprovals } from '../../runtime/approvals/index.js';
import { isAlive } from '../../foundation/process/index.js';
import { effectiveRecord, isActiveStatus, sessionDir } from '../../runtime/session/index.js';
import { parseCommand, printDiagnostics, printHelp, printJson } from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo session approvals [ID] [--json]

List the approval requests waiting for a person: MCP tool calls whose approval mode asks, commands
and file changes that Codex processes of the session (the exec root and every participant) asked
for. Without ID, every running session's. Answer one with 'codex-mmo session approve ID REQUEST'
or 'codex-mmo session deny ID REQUEST [--reason TEXT]'; an unanswered request is denied when it
expires. ID may be a unique prefix of a session id.

--json prints {"approvals": [{"id", "session", "process", "role", "kind", "server", "tool",
"arguments", "requested_at", "expires_at"}]}.`;

function outward(a: PendingApproval): Record<string, unknown> {
  return {
    id: a.id,
    session: a.session,
    process: a.process,
    role: a.role,
    kind: a.kind,
    server: a.server ?? null,
    tool: a.tool ?? null,
    arguments: a.arguments,
    requested_at: a.requested_at,
    expires_at: a.expires_at,
    ...(a.thread !== undefined ? { thread: a.thread } : {}),
    ...(a.message !== undefined ? { message: a.message } : {}),
  };
}

/** The text view: a table of the requests, then one line of masked arguments per request. */
export function approvalsText(approvals: readonly PendingApproval[]): string {
  const table = formatTable(
    ['REQUEST', 'SESSION', 'PROCESS', 'ROLE', 'KIND', 'WHAT', 'EXPIRES'],
    approvals.map((a) => [
      a.id,
      a.session,
      a.process,
      a.role,
      a.kind,
      a.kind === 'mcp_tool_call' ? `${a.server ?? '?'}.${a.tool ?? '?'}` : (a.tool ?? '-'),
      a.expires_at,
    ]),
  );
  const args = approvals.map(
    (a) => `${terminalSafe(`${a.session} ${a.id} arguments: ${a.arguments}`)}\n`,
  );
  return table + args.join('');
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 0, max: 1 });
  if (cmd.help) return printHelp(io, USAGE);
  const id = cmd.positionals[0];
  const dirs =
    id !== undefined
      ? [await locateSession(cmd.dirs.stateDir, id)]
      : (await listSessionRecords(cmd.dirs.stateDir))
          .filter((r) => isActiveStatus(effectiveRecord(r, isAlive).status))
          .map((r) => sessionDir(cmd.dirs.stateDir, r.id));
  const approvals: PendingApproval[] = [];
  const problems: Diagnostic[] = [];
  for (const dir of dirs) {
    const listed = await listSessionApprovals(dir);
    approvals.push(...listed.approvals);
    if (listed.problem !== undefined) problems.push(listed.problem);
  }
  if (cmd.json) {
    printJson(io, {
      approvals: approvals.map(outward),
      ...(problems.length > 0 ? { diagnostics: problems } : {}),
    });
    return problems.length > 0 ? EXIT_FAILURE : EXIT_OK;
  }
  printDiagnostics(io, problems);
  if (approvals.length === 0) {
    io.stdout(
      id !== undefined
        ? 'No approval requests are waiting in this session.\n'
        : 'No approval requests are waiting.\n',
    );
    return problems.length > 0 ? EXIT_FAILURE : EXIT_OK;
  }
  io.stdout(approvalsText(approvals));
  return problems.length > 0 ? EXIT_FAILURE : EXIT_OK;
}
