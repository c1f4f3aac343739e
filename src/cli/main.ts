#!/usr/bin/env node
/**
 * The `codex-mmo` executable: routes `GROUP COMMAND` to a lazily imported command module, so each
 * invocation loads only the code it needs, and turns unexpected failures into one clean line. A
 * session's relay (`gateway connect` with its rendered arguments) skips the router altogether:
 * Codex waits for it before a session's first turn.
 */
import { homedir } from 'node:os';

import { fdWriter } from './fd-writer.js';
import { pidNamespace } from '../foundation/process/index.js';

// A closed pipe (`codex-mmo tool-mcp list | head`) ends output quietly instead of with a trace:
// once the turn that met it is over, with the exit code of a command that finished meanwhile
// (a command that still runs, such as `session logs --follow`, ends with 0).
const closed = (): void => {
  setImmediate(() => process.exit(process.exitCode ?? 0));
};
const stdout = fdWriter(1, () => process.stdout, closed);
const stderr = fdWriter(2, () => process.stderr, closed);

/** The one line for a failure no command caught (output itself failing, `--help > /dev/full`). */
function uncaught(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  try {
    stderr(`codex-mmo: ${message}\n`);
  } catch {
    // stderr is gone too: the exit code is all that is left
  }
  return 1;
}

const argv = process.argv.slice(2);
async function main(): Promise<number> {
  const relayed =
    argv[0] === 'gateway' && argv[1] === 'connect'
      ? await (
          await import('../runtime/gateway/index.js')
        ).runRelayFromArguments(argv.slice(2), {
          cwd: process.cwd(),
          env: process.env,
          pid: process.pid,
          pidNs: pidNamespace(),
          stdin: process.stdin,
          stdout: process.stdout,
          stderr,
        })
      : undefined;
  if (relayed !== undefined) return relayed;
  return (await import('./router.js')).run(argv, {
    stdout,
    stderr,
    env: process.env,
    cwd: process.cwd(),
    home: process.env.HOME ?? homedir(),
    // a getter: node:tty and the stdout stream are loaded only for a command that asks
    get isTty() {
      return process.stdout.isTTY;
    },
    get stdinIsTty() {
      // Node leaves `isTTY` unset, not false, on a stream that is no terminal
      return (process.stdin.isTTY as boolean | undefined) === true;
    },
  });
}
process.exitCode = await main().catch(uncaught);
