/**
 * The session watchdog: a tiny detached `/bin/sh` whose input is a pipe from the supervising
 * codex-mmo process. If that input closes without the word `done` — the supervisor was killed
 * (`kill -9`, out of memory) and could not end its session — the watchdog sends SIGTERM to the
 * session root Codex and to every participant process group it was told about, and SIGKILL to
 * whatever is still there after a grace period. Given a session id it does the same to every
 * process carrying the session's marker (`CODEX_MMO_SESSION=<id>`: Tool MCP servers in their own
 * process groups, app-server daemons, participants), then clears the process homes (the
 * `auth.json` copies and Codex's state; the rendered files and rollouts stay), removes its sockets
 * and token files and the sandbox mount points left empty in the working directory. The session's
 * containers end on their own when the supervisor dies (their parent-death signals); the watchdog
 * is the second line, for processes that could not be contained. Codex itself never learns
 * about the watchdog.
 */
import { spawn } from 'node:child_process';

import { KEPT_IN_ENDED_HOME } from '../../runtime/session/codex-home.js';

/** Seconds between SIGTERM and SIGKILL. */
export const WATCHDOG_GRACE_SEC = 5;

/** The watchdog's whole environment: it needs only `kill` and `sleep`. */
export const WATCHDOG_ENV: Readonly<Record<string, string>> = { PATH: '/usr/bin:/bin' };

const SCRIPT = `
trap '' INT HUP QUIT PIPE
root=$1
grace=$2
sid=$3
homes=$4
socks=$5
groups=
sweep() {
  [ -n "$sid" ] || return 0
  # one grep over every environment (entries are NUL-separated lines)
  grep -lzxF "CODEX_MMO_SESSION=$sid" /proc/[0-9]*/environ 2>/dev/null | while read -r e; do
    p=\${e#/proc/}
    p=\${p%/environ}
    [ "$p" = "$$" ] && continue
    kill -s "$1" "$p" 2>/dev/null
  done
}
while read -r word rest; do
  case $word in
    done) exit 0 ;;
    groups) groups=$rest ;;
  esac
done
# the credentials and the ways in go first: the auth.json copies, sockets, token files
[ -n "$homes" ] && rm -f "$homes"/*/auth.json
# sockets: one path a line; a per-session temporary directory goes once empty
if [ -n "$socks" ]; then
  printf '%s\n' "$socks" | while IFS= read -r s; do
    [ -n "$s" ] || continue
    rm -f "$s"
    d=\${s%/*}
    [ "\${d##*/}" = "codex-mmo-$sid" ] && rmdir "$d" 2>/dev/null
  done
fi
if [ -n "$homes" ]; then
  dir=\${homes%/homes}
  rm -f "$dir"/*.token "$dir"/*.sock "$dir"/*.key
  rm -rf "$dir/tokens"
fi
kill -s TERM "$root" 2>/dev/null
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sweep TERM
i=0
# running: not gone and not a zombie waiting to be reaped (the root's container ends on its own)
running() {
  read -r st < "/proc/$1/stat" 2>/dev/null || return 1
  case \${st##*) } in Z* | X*) return 1 ;; esac
}
while [ "$i" -lt "$grace" ] && running "$root"; do sleep 1; i=$((i + 1)); done
[ -n "$sid" ] && sleep 1
kill -s KILL "$root" 2>/dev/null
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
sweep KILL
if [ -n "$homes" ]; then
  rm -f "$homes"/*/auth.json
  # the rest of Codex's state in the homes: only the rendered files and the rollouts stay
  find "$homes" -mindepth 2 -maxdepth 2 ${KEPT_IN_ENDED_HOME.map((name) => `! -name ${name}`).join(' ')} -exec rm -rf {} + 2>/dev/null
fi
shift 5
# the sandbox's mount points, absent when the session started: only empty ones go
for m in "$@"; do
  if [ -d "$m" ] && [ ! -L "$m" ]; then rmdir "$m" 2>/dev/null
  elif [ -f "$m" ] && [ ! -L "$m" ] && [ ! -s "$m" ]; then rm -f "$m"
  fi
done
exit 0
`;

export interface Watchdog {
  /** The watchdog's own process id, if it started. */
  readonly pid: number | undefined;
  /** The participant process groups to end with the session (replaces the previous list). */
  setGroups(pids: readonly number[]): void;
  /** The session has ended normally: the watchdog exits without signalling anything. */
  release(): void;
}

/**
 * Starts a watchdog for the Codex process `rootPid`. Failing to start one (no `/bin/sh`) is not
 * an error: the session runs, only without this protection.
 */
export interface WatchdogSession {
  /** The session id: every process carrying its marker is ended. */
  readonly id: string;
  /** `<session>/homes`, whose `auth.json` copies are removed. */
  readonly homesDir: string;
  /** The session's sockets (mesh, gateway, approvals), removed. */
  readonly sockets: readonly string[];
  /** Sandbox mount points absent from the root's working directory at launch: removed if empty. */
  readonly mountPoints?: readonly string[];
}

export function startWatchdog(
  rootPid: number,
  graceSec = WATCHDOG_GRACE_SEC,
  session?: WatchdogSession,
): Watchdog {
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      SCRIPT,
      'codex-mmo-watchdog',
      String(rootPid),
      String(graceSec),
      session?.id ?? '',
      session?.homesDir ?? '',
      (session?.sockets ?? []).join('\n'),
      ...(session?.mountPoints ?? []),
    ],
    // built, not inherited: the supervisor's environment holds credential values
    { detached: true, stdio: ['pipe', 'ignore', 'ignore'], env: WATCHDOG_ENV },
  );
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  // neither the watchdog nor its pipe may keep the supervisor alive
  child.unref();
  (child.stdin as unknown as { unref?: () => void }).unref?.();
  let released = false;
  let last = '';
  return {
    pid: child.pid,
    setGroups(pids) {
      const line = `groups ${[...new Set(pids)].sort((a, b) => a - b).join(' ')}\n`;
      if (released || line === last || !child.stdin.writable) return;
      last = line;
      child.stdin.write(line);
    },
    release() {
      if (released) return;
      released = true;
      if (child.stdin.writable) child.stdin.end('done\n');
    },
  };
}
