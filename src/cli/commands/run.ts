/**
 * `codex-mmo run PROFILE [--cwd DIR] [--max-participants N] [-- CODEX_ARGS]`: starts interactive Codex as the profile's
 * root role in a new session, with the terminal handed to Codex. Shares the launch with `exec`.
 */
import type { CliIo } from '../io.js';
import { runSessionCommand } from './exec.js';

const USAGE = `Usage: codex-mmo run PROFILE [--cwd DIR] [--approval-timeout SEC] [--max-participants N] [--max-codex-processes N] [--max-server-processes N] [--max-memory MB] [--accept-host-risk] [-- CODEX_ARGS...]
       codex-mmo run --resume ID [PROMPT] [OPTIONS] [-- CODEX_ARGS...]

Start interactive Codex as the root role of PROFILE (an installed pack name or a pack directory)
in a new session: the profile is compiled (or its snapshot reused), the session gets
<state-dir>/sessions/<id>/ with a private Codex home, and Codex receives a built environment with
only the variables its servers reference. A missing variable of a required grant stops the launch
before Codex runs. Arguments after -- go to Codex. Codex's exit code is passed through.

The root's own approvals are asked in its TUI. Participants' approval requests wait in the
session's approval queue and are put to you in the TUI too (Allow / Deny; Cancel leaves them
waiting); or answer them from another terminal with 'codex-mmo session approvals',
'session approve ID REQUEST' or 'session deny ID REQUEST'. The first answer wins.
'session logs ID --follow' watches.

Options:
  --resume ID               continue session ID from its own snapshot instead of starting PROFILE
                            (see 'codex-mmo session resume --help')
  --cwd DIR                 working directory of Codex (default: the current directory, or the
                            resumed session's)
  --approval-timeout SEC    deny a participant's unanswered approval request after SEC seconds
                            (default 900)
  --max-participants N      most participants the session runs at once (default 8)
  --max-codex-processes N   most Codex processes (root and participants) at once (default: no limit)
  --max-server-processes N  most Tool MCP server processes at once (default: no limit)
  --max-memory MB           most resident memory of the session's processes together; a spawn
                            or server start that would pass it is refused (default: no limit)
  --accept-host-risk        start even where the host view cannot be built and a role's shell
                            has network (it could reach the operator's daemons)

With --json, launch errors are printed as JSON on stdout and a JSON summary of the ended session
is printed on stderr (the terminal belongs to Codex).`;

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return runSessionCommand('run', args, io, USAGE);
}
