/** `codex-mmo session deny ID REQUEST [--reason TEXT]`: denies one pending approval request. */
import type { CliIo } from '../io.js';
import { answer } from './session-answer.js';

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return answer('deny', args, io);
}
