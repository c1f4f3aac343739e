/**
 * How a Tool MCP server that failed behind the gateway is told (pure): a `server-start-failed`
 * diagnostic on the stderr of `run`/`exec` — an error when the role's grant requires the server, a
 * warning otherwise — and a `server.failed` event of the session log, both with the server's own
 * last stderr lines (masked) and, for an HTTP server, its URL and the connection error.
 */
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { EventInput } from '../../runtime/events/session-event.js';
import { describeServerFailure, type ServerFailure } from '../../runtime/gateway/server-failure.js';
import type { ResolvedPlan } from '../../config/profile/types.js';

/** Whether the process's root role's grant requires the failed server. */
export function failureRequired(plan: ResolvedPlan, failure: ServerFailure): boolean {
  return plan.roles[failure.role]?.grants[failure.server]?.required === true;
}

export function serverFailureDiagnostic(failure: ServerFailure, required: boolean): Diagnostic {
  const where =
    failure.process === 'root' ? 'the session root process' : `participant '${failure.process}'`;
  const effect =
    failure.stage === 'ended'
      ? 'its tools are gone for the rest of that process'
      : required
        ? 'the grant requires it, so that process cannot start'
        : 'the grant does not require it, so that process runs without its tools';
  return diagnostic({
    severity: required ? 'error' : 'warning',
    code: 'server-start-failed',
    message: `${describeServerFailure(failure)} (in ${where}, role '${failure.role}'; ${effect}); check the server with \`codex-mmo tool-mcp probe ${failure.server}\``,
    server: failure.server,
  });
}

export function serverFailureEvent(failure: ServerFailure): EventInput {
  const { server, process, role, stage, url, reason, stderr } = failure;
  const tail = stderr.length > 0 ? `; its stderr ended with: ${stderr.join(' | ')}` : '';
  return {
    process,
    role,
    type: 'server.failed',
    server,
    status: stage === 'start' ? 'start-failed' : 'ended',
    text: `${url !== undefined ? `${url}: ` : ''}${reason}${tail}`,
  };
}

const CODEX_REQUIRED_FAILED = 'required MCP servers failed to initialize: ';

/**
 * Codex's `required MCP servers failed …` followed by what each of those root servers said. Where
 * Codex names one server and only repeats what the gateway told it (its words, twice over), its
 * text is cut to the server's name, so the server's own words are said once.
 */
export function withOwnWords(codexError: string, failures: readonly ServerFailure[]): string {
  const mine = failures.filter(
    (f) => f.process === 'root' && f.stage === 'start' && codexError.includes(f.server),
  );
  const only = mine.length === 1 ? mine[0] : undefined;
  const named = codexError.startsWith(CODEX_REQUIRED_FAILED)
    ? codexError.slice(CODEX_REQUIRED_FAILED.length).split(': ')[0]
    : undefined;
  const head =
    only !== undefined && named === only.server && codexError.includes(only.reason)
      ? `${CODEX_REQUIRED_FAILED}${only.server}`
      : codexError;
  return [head, ...mine.map(describeServerFailure)].join('; ');
}
