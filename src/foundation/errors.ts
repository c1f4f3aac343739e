/**
 * Error classes for IO and process failures, each with a stable `code`.
 * Expected user mistakes are `Diagnostic` data instead; these are for the environment failing
 * underneath us (unreadable directory, Codex binary missing, a child process dying).
 */

export type CodexMmoErrorCode =
  | 'io-error'
  | 'not-found'
  | 'process-failed'
  | 'timeout'
  | 'integrity-error'
  | 'usage-error'
  | 'listener-not-verified';

export class CodexMmoError extends Error {
  readonly code: CodexMmoErrorCode;
  constructor(code: CodexMmoErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CodexMmoError';
    this.code = code;
  }
}

/** A file or directory could not be read or written. */
export class IoError extends CodexMmoError {
  readonly filePath: string;
  constructor(filePath: string, message: string, options?: { cause?: unknown }) {
    super('io-error', message, options);
    this.name = 'IoError';
    this.filePath = filePath;
  }
}

/** A child process (Codex, an MCP server) failed to start, exited badly or timed out. */
export class ProcessError extends CodexMmoError {
  constructor(code: 'process-failed' | 'timeout', message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'ProcessError';
  }
}

/** Stored data (a snapshot, an installed pack) does not match its recorded identity. */
export class IntegrityError extends CodexMmoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('integrity-error', message, options);
    this.name = 'IntegrityError';
  }
}

/**
 * The process listening on a session's Unix socket could not be shown to be the session's own
 * (the socket or its directory is not private to this user, or another process holds the other
 * end of the connection): nothing secret was sent to it.
 */
export class ListenerNotVerifiedError extends CodexMmoError {
  readonly socketPath: string;
  constructor(socketPath: string, message: string, options?: { cause?: unknown }) {
    super('listener-not-verified', message, options);
    this.name = 'ListenerNotVerifiedError';
    this.socketPath = socketPath;
  }
}

/** Short text for an unknown thrown value, for messages that must not leak a stack trace. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    // Node's own messages already start with the code ("ENOENT: no such file …")
    return typeof code === 'string' &&
      !(error instanceof CodexMmoError) &&
      !error.message.startsWith(`${code}:`)
      ? `${code}: ${error.message}`
      : error.message;
  }
  return String(error);
}
