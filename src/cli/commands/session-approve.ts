/** `codex-mmo session approve ID REQUEST`: approves one pending approval request. */
import type { CliIo } from '../io.js';
import { answer } from './session-answer.js';

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return answer('approve', args, io);
}
