/**
 * The first process of every container: a small `/bin/sh` script. It runs the command in the
 * foreground (its terminal, process group, input and signal dispositions untouched) and, in the
 * background, reads signal names from descriptor 3, the supervisor's control pipe, sending each
 * to every process of the container. End of that input — the supervisor ended the container or
 * died, even by `kill -9` — sends SIGTERM to all of them and SIGKILL after the grace period. When
 * the command ends, what it left gets SIGTERM and a second to go; then the init exits, and the
 * kernel kills whatever is still in the namespace. Its exit status is the command's (128 + n
 * after signal n).
 */

/** Signal names the control pipe forwards. */
export const FORWARDED_SIGNALS = ['INT', 'QUIT', 'TERM', 'HUP', 'KILL'] as const;

/**
 * `sh -c` script; `$1` the grace in seconds, `$2` the absolute `sleep`, `$3` `unset-pwd` when the
 * command's environment has no `PWD` (the shell sets one), the rest the command.
 */
export const CONTAINER_INIT = `grace=$1
sleep=$2
[ "$3" = unset-pwd ] && unset PWD
shift 3
(
  trap '' INT QUIT TERM HUP
  while read -r sig; do
    case $sig in INT | QUIT | TERM | HUP | KILL) kill -s "$sig" -- -1 ;; esac
  done
  kill -s TERM -- -1
  "$sleep" "$grace"
  kill -s KILL -- -1
) <&3 3<&- >/dev/null 2>&1 &
reader=$!
exec 3<&-
"$@"
status=$?
kill -s KILL "$reader" 2>/dev/null
if kill -s TERM -- -1 2>/dev/null; then
  i=0
  while [ "$i" -lt 20 ] && kill -s 0 -- -1 2>/dev/null; do "$sleep" 0.05; i=$((i + 1)); done
fi
exit "$status"
`;

/** The name the init shows as `$0` (in `ps`). */
export const CONTAINER_INIT_NAME = 'codex-mmo-container';
