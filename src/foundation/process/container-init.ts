/**
 * The first process of every container: a small `/bin/sh` script. It runs the command in the
 * foreground (its terminal, process group, input and signal dispositions untouched) and, in the
 * background, reads signal names from descriptor 3, the supervisor's control pipe, sending each
 * to every process of the container. End of that input — the supervisor ended the container or
 * died, even by `kill -9` — sends SIGTERM to all of them and SIGKILL after the grace period. When
 * the command ends, what it left gets SIGTERM and a second to go; then the init exits, and the
 * kernel kills whatever is still in the namespace. Its exit status is the command's (128 + n
 * after signal n). The command's environment arrives on descriptor 4 as `export` lines, so
 * neither `unshare` nor the init holds it in its own environment (`/proc/<pid>/environ`): a
 * server's credential is in the server's process alone.
 */

/** Signal names the control pipe forwards. */
export const FORWARDED_SIGNALS = ['INT', 'QUIT', 'TERM', 'HUP', 'KILL'] as const;

/**
 * `sh -c` script (its own variables start with `_mmo_`, so none of the command's is touched);
 * `$1` the grace in seconds, `$2` the absolute `sleep`, `$3` `unset-pwd` when the
 * command's environment has no `PWD` (the shell sets one), the rest the command.
 */
export const CONTAINER_INIT = `_mmo_env=
while IFS= read -r _mmo_line; do _mmo_env="$_mmo_env$_mmo_line
"; done <&4
exec 4<&-
eval "$_mmo_env"
unset _mmo_env _mmo_line
_mmo_grace=$1
_mmo_sleep=$2
[ "$3" = unset-pwd ] && unset PWD
shift 3
(
  trap '' INT QUIT TERM HUP
  while read -r _mmo_sig; do
    case $_mmo_sig in INT | QUIT | TERM | HUP | KILL) kill -s "$_mmo_sig" -- -1 ;; esac
  done
  kill -s TERM -- -1
  "$_mmo_sleep" "$_mmo_grace"
  kill -s KILL -- -1
) <&3 3<&- >/dev/null 2>&1 &
_mmo_reader=$!
exec 3<&-
"$@"
_mmo_status=$?
kill -s KILL "$_mmo_reader" 2>/dev/null
if kill -s TERM -- -1 2>/dev/null; then
  _mmo_i=0
  while [ "$_mmo_i" -lt 20 ] && kill -s 0 -- -1 2>/dev/null; do "$_mmo_sleep" 0.05; _mmo_i=$((_mmo_i + 1)); done
fi
exit "$_mmo_status"
`;

/** The name the init shows as `$0` (in `ps`). */
export const CONTAINER_INIT_NAME = 'codex-mmo-container';

/** A name the init can export; other names stay in the container's own environment. */
const EXPORTABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `'…'` with every `'` written as `'\''`: the shell reads the value back byte for byte. */
function quoted(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * Splits a command's environment into the `export` lines the init reads on descriptor 4 and the
 * few variables whose names a shell cannot export, which stay in the container's environment.
 */
export function environmentScript(env: Readonly<Record<string, string>>): {
  readonly script: string;
  readonly rest: Record<string, string>;
} {
  const lines: string[] = [];
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (EXPORTABLE.test(name)) lines.push(`export ${name}=${quoted(value)}`);
    else rest[name] = value;
  }
  return { script: `${lines.join('\n')}\n`, rest };
}
