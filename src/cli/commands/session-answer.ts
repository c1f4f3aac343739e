/**
 * `codex-mmo session approve ID REQUEST` and `session deny ID REQUEST [--reason TEXT]`: answer
 * one pending approval request of a running session. The answer is recorded in the session with
 * the OS user of this process, as the supervisor sees the connection, and when; a request is
 * answered at most once.
 */
import { terminalSafe } from '../../foundation/text/index.js';
import { locateSession } from '../../runtime/session/index.js';
import type { ApprovalDecision } from '../../runtime/protocol/index.js';
import { answerSessionApproval } from '../../runtime/approvals/index.js';
import { parseCommand, printFailure, printHelp, printJson } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

export const APPROVE_USAGE = `Usage: codex-mmo session approve ID REQUEST [--json]

Approve one pending approval request (see 'codex-mmo session approvals ID') of a running session:
the Codex process that asked goes on (the MCP tool runs once). Recorded in the session's
approvals.jsonl and events with your OS user name and the time. ID may be a unique prefix.`;

export const DENY_USAGE = `Usage: codex-mmo session deny ID REQUEST [--reason TEXT] [--json]

Deny one pending approval request of a running session: the tool call, command or change is not
made and the model is told it was declined. Recorded with your OS user name, the time and the
reason. ID may be a unique prefix.`;

export async function answer(
  decision: ApprovalDecision,
  args: readonly string[],
  io: CliIo,
): Promise<number> {
  const deny = decision === 'deny';
  const cmd = parseCommand(args, io, deny ? { reason: { type: 'string' } } : {}, {
    min: 2,
    max: 2,
    names: ['ID', 'REQUEST'],
  });
  if (cmd.help) return printHelp(io, deny ? DENY_USAGE : APPROVE_USAGE);
  const [id = '', request = ''] = cmd.positionals;
  const dir = await locateSession(cmd.dirs.stateDir, id);
  const reason = typeof cmd.values.reason === 'string' ? cmd.values.reason : undefined;
  const outcome = await answerSessionApproval(dir, request, decision, reason);
  if (!outcome.ok) return printFailure(io, cmd.json, [outcome.diagnostic]);
  if (cmd.json) {
    printJson(io, { ok: true, request: outcome.request, answer: outcome.answer });
    return EXIT_OK;
  }
  const r = outcome.request;
  const what = r.kind === 'mcp_tool_call' ? `${r.server ?? '?'}.${r.tool ?? '?'}` : r.kind;
  io.stdout(
    `${terminalSafe(`${deny ? 'Denied' : 'Approved'} ${r.id} (${what} for ${r.process}, role ${r.role}) in session ${r.session}.`)}\n`,
  );
  return EXIT_OK;
}
