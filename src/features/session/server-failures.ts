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

/** Codex's `required MCP servers failed …` followed by what each of those root servers said. */
export function withOwnWords(codexError: string, failures: readonly ServerFailure[]): string {
  const own = failures
    .filter((f) => f.process === 'root' && f.stage === 'start' && codexError.includes(f.server))
    .map(describeServerFailure);
  return [codexError, ...own].join('; ');
}
