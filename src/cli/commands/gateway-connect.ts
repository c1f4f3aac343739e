/**
 * `codex-mmo gateway connect --socket PATH --process ID --server S --token-env NAME`: the relay
 * Codex starts in place of a Tool MCP server of a session. It carries no credential; it reaches
 * the session's gateway, which runs the real server. Codex starts this from the session's
 * generated configuration; people do not run it. It speaks on the real stdin/stdout.
 */
import { isAbsolute, resolve } from 'node:path';

import { runRelay } from '../../runtime/gateway/index.js';
import { UsageError, parseCommand, printHelp } from '../common.js';
import type { CliIo } from '../io.js';
import { pidNamespace } from '../../foundation/process/index.js';

const USAGE = `Usage: codex-mmo gateway connect --socket PATH --process ID --server S --token-env NAME

Relay one Tool MCP server of a running session between Codex (stdin/stdout) and the session's
gateway in the supervising codex-mmo process, which starts the real server with its credentials.
Codex starts this from the session's generated configuration; it is not meant to be run by hand.
The relay's one-time token is read from the variable NAME; the gateway refuses a connection
without an unspent token.

Options:
  --socket PATH        the session gateway's Unix socket
  --process ID         the calling Codex process (root or a participant id)
  --server S           the Tool MCP server this relay stands for
  --token-env NAME     the variable holding this relay's token`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    {
      socket: { type: 'string' },
      process: { type: 'string' },
      server: { type: 'string' },
      'token-env': { type: 'string' },
    },
    { min: 0, max: 0 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const need = (name: string): string => {
    const value = cmd.values[name];
    if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
    return value;
  };
  const socket = need('socket');
  const processId = need('process');
  const server = need('server');
  const tokenEnv = need('token-env');
  return runRelay({
    socketPath: isAbsolute(socket) ? socket : resolve(io.cwd, socket),
    process: processId,
    server,
    token: io.env[tokenEnv] ?? '',
    pid: process.pid,
    pidNs: pidNamespace(),
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: (text) => {
      io.stderr(text);
    },
  });
}
