/**
 * A Tool MCP server that failed behind the gateway, as the operator is told it: which process,
 * role and server, whether it could not start (or answer its first request) or went away later,
 * for a Streamable HTTP server its URL and the connection error, and a stdio server's last stderr
 * lines. Every text is masked before a `ServerFailure` is made.
 */
import { describeError } from '../../foundation/errors.js';

export interface ServerFailure {
  /** `root` or the participant id. */
  readonly process: string;
  /** The process's root role. */
  readonly role: string;
  readonly server: string;
  /** `start`: it never answered its first request; `ended`: it went away after that. */
  readonly stage: 'start' | 'ended';
  /** A Streamable HTTP server's URL. */
  readonly url?: string;
  /** What went wrong (masked): the exit, the start error or the connection error. */
  readonly reason: string;
  /** The last lines the server wrote to stderr (masked). */
  readonly stderr: readonly string[];
}

/** Lines of a failed server's stderr kept in its failure. */
export const STDERR_TAIL_LINES = 5;

/** The last non-empty lines of `text`, each bounded. */
export function stderrLines(text: string): string[] {
  return text
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .slice(-STDERR_TAIL_LINES)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
}

/** An error with its causes (fetch failures hide the connection error there). */
export function withCause(error: unknown): string {
  const parts = [describeError(error)];
  let cause = (error as { cause?: unknown } | null)?.cause;
  for (let depth = 0; depth < 3 && cause !== undefined && cause !== null; depth++) {
    const text = describeError(cause);
    if (!parts.includes(text)) parts.push(text);
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.length > 1 ? `${parts[0] ?? ''} (${parts.slice(1).join(': ')})` : (parts[0] ?? '');
}

/** One line: `server 'S' at URL could not start: REASON; its stderr ended with: A | B`. */
export function describeServerFailure(failure: ServerFailure): string {
  const at = failure.url !== undefined ? ` at ${failure.url}` : '';
  const what = failure.stage === 'start' ? 'could not start' : 'ended';
  const tail =
    failure.stderr.length > 0 ? `; its stderr ended with: ${failure.stderr.join(' | ')}` : '';
  return `server '${failure.server}'${at} ${what}: ${failure.reason}${tail}`;
}
