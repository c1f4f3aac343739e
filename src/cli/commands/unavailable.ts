/** Shared body of commands that are not part of this build. */
import { EXIT_USAGE, type CliIo } from '../io.js';

export function run(_args: readonly string[], io: CliIo): Promise<number> {
  io.stderr('codex-mmo: this command is not available in this build\n');
  return Promise.resolve(EXIT_USAGE);
}
