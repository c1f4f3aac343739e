/**
 * `codex-mmo mesh serve --session DIR --process ROLE [--participant ID]`: the `mmo_mesh` Agent
 * MCP server over stdio. Codex starts it from the rendered config of a session's process; people
 * do not run it. This command necessarily speaks on the real stdin/stdout of the process.
 */
import { isAbsolute, resolve } from 'node:path';

import { MESH_TOKEN_ENV, serveMesh } from '../../runtime/mesh/index.js';
import { UsageError, parseCommand, printHelp } from '../common.js';
import { EXIT_OK, type CliIo } from '../io.js';

const USAGE = `Usage: codex-mmo mesh serve --session DIR --process ROLE [--participant ID]

Serve the mmo_mesh Agent MCP server on stdin/stdout for one Codex process of a running session.
Codex starts this from the session's generated configuration; it is not meant to be run by hand.
Tools: spawn_participant, send_message, wait_participant, list_participants, stop_participant.
The calling process's credential is read from ${MESH_TOKEN_ENV}; the session broker refuses a
connection without a valid one.

Options:
  --session DIR        the session directory (<state-dir>/sessions/<id>)
  --process ROLE       the root role of the calling Codex process
  --participant ID     the calling participant's id (absent for the session root process)`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(
    args,
    io,
    {
      session: { type: 'string' },
      process: { type: 'string' },
      participant: { type: 'string' },
    },
    { min: 0, max: 0 },
  );
  if (cmd.help) return printHelp(io, USAGE);
  const session = cmd.values.session;
  const role = cmd.values.process;
  const participant = cmd.values.participant;
  if (typeof session !== 'string' || session === '')
    throw new UsageError('--session DIR is required');
  if (typeof role !== 'string' || role === '') throw new UsageError('--process ROLE is required');
  const token = io.env[MESH_TOKEN_ENV];
  await serveMesh({
    sessionDir: isAbsolute(session) ? session : resolve(io.cwd, session),
    caller: { process: role, participant: typeof participant === 'string' ? participant : 'root' },
    ...(token !== undefined && token !== '' ? { token } : {}),
    stdin: process.stdin,
    stdout: process.stdout,
  });
  return EXIT_OK;
}
