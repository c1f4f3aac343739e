/**
 * `codex-mmo session resume ID [PROMPT] [OPTIONS] [-- CODEX_ARGS]`: continues an ended, stopped or
 * failed session in a new one, in the mode it ran in — `run --resume ID` or `exec --resume ID
 * PROMPT`, whose launch it shares.
 */
import { parseArgs } from 'node:util';

import { locateSession, readSessionRecord } from '../../index.js';

import { GLOBAL_OPTIONS, UsageError, parseCommand, printHelp } from '../common.js';
import type { CliIo } from '../io.js';
import { runSessionCommand, SESSION_OPTIONS } from './exec.js';

const USAGE = `Usage: codex-mmo session resume ID [PROMPT] [--cwd DIR] [--approval-timeout SEC] [--max-participants N] [--max-codex-processes N] [--max-server-processes N] [--max-memory MB] [--accept-host-risk] [-- CODEX_ARGS...]

Continue session ID (or a unique prefix) in a new session, in the mode it ran in: an interactive
session opens Codex's TUI on the root's conversation (PROMPT, if given, is its next message); an
exec session takes PROMPT (required; '-' reads stdin) as the root's next turn. The same as
'codex-mmo run --resume ID' and 'codex-mmo exec --resume ID PROMPT'.

The new session runs the earlier session's own snapshot — the same roles, grants, pins, approval
policy and tool surface, even if the registry or pack changed since — works in its directory
(unless --cwd), and records 'resumed_from'. The root's Codex thread continues with its history;
the earlier participants are listed to the root by list_participants (as previous), and
spawn_participant with resume=ID continues one. Works for ended, stopped and failed sessions, a
killed supervisor's included. Refused, saying why, when the session is still running, its
snapshot is gone (snapshot prune/rm), its root kept no thread, or a pinned server's definition
drifted from its pin.

The options are run's and exec's.`;

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const separator = args.indexOf('--');
  const own = separator < 0 ? args : args.slice(0, separator);
  const rest = separator < 0 ? [] : args.slice(separator);
  // its own ID stands where run and exec take --resume
  const options = Object.fromEntries(
    Object.entries(SESSION_OPTIONS).filter(([name]) => name !== 'resume'),
  );
  const cmd = parseCommand(own, io, options, { min: 1, max: 2, names: ['ID', 'PROMPT'] });
  if (cmd.help) return printHelp(io, USAGE);
  const [id = '', prompt] = cmd.positionals;
  const record = await readSessionRecord(await locateSession(cmd.dirs.stateDir, id));
  if (record.mode === 'exec' && prompt === undefined) {
    throw new UsageError(
      `session ${record.id} ran with exec: give the root's next prompt, 'codex-mmo session resume ${record.id} PROMPT'`,
    );
  }
  // the session command again, its ID (the first positional, never an option's value) moved to
  // --resume and the prompt kept in place
  const { tokens } = parseArgs({
    args: [...own],
    options: { ...GLOBAL_OPTIONS, ...options },
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const at = tokens.find((t) => t.kind === 'positional')?.index ?? -1;
  const forwarded = at < 0 ? own : [...own.slice(0, at), ...own.slice(at + 1)];
  return runSessionCommand(record.mode, ['--resume', record.id, ...forwarded, ...rest], io, USAGE);
}
