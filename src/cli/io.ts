/**
 * What a CLI command receives from the process: output streams, environment, working directory
 * and home. Commands never touch `process` directly, so tests can run them in-process.
 */
import type { Environment } from '../foundation/paths/index.js';

export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Environment;
  readonly cwd: string;
  readonly home: string;
  /** Whether stdout is a terminal (for colour and alignment decisions). */
  readonly isTty: boolean;
  /** Whether stdin is a terminal (Codex's TUI needs one); undefined where not known. */
  readonly stdinIsTty?: boolean;
}

/** A command module: parses its own arguments and returns the process exit code. */
export interface CommandModule {
  run(args: readonly string[], io: CliIo): Promise<number>;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
