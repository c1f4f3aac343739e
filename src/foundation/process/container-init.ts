/**
 * The first process of every container, a small `/bin/sh` script that reads the command's
 * environment from descriptor 3 (never in its own or `unshare`'s environ). As an init it runs the
 * command in the foreground (terminal, process group, input, signal dispositions untouched), then
 * gives what it left SIGTERM and a second and exits with the command's status (128 + n after
 * signal n); or it replaces itself with the command, which becomes the first process.
 */

/** Reads the environment; `$1` the absolute `sleep`, `$2` `unset-pwd` when it has no `PWD`. */
const PROLOGUE = `_mmo_env=
while IFS= read -r _mmo_line; do _mmo_env="$_mmo_env$_mmo_line
"; done <&3
exec 3<&-
eval "$_mmo_env"
unset _mmo_env _mmo_line
_mmo_sleep=$1
[ "$2" = unset-pwd ] && unset PWD
shift 2
`;

/**
 * `sh -c` script of an init (its own variables start with `_mmo_`, so none of the command's is
 * touched); `$1` the absolute `sleep`, `$2` `unset-pwd` when the command's environment has no
 * `PWD` (the shell sets one), the rest the command.
 */
export const CONTAINER_INIT = `${PROLOGUE}"$@"
_mmo_status=$?
if kill -s TERM -- -1 2>/dev/null; then
  _mmo_i=0
  while [ "$_mmo_i" -lt 20 ] && kill -s 0 -- -1 2>/dev/null; do "$_mmo_sleep" 0.05; _mmo_i=$((_mmo_i + 1)); done
fi
exit "$_mmo_status"
`;

/** `sh -c` script that sets the environment and replaces itself with the command (same `$n`). */
export const CONTAINER_EXEC = `${PROLOGUE}exec "$@"
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
 * Splits a command's environment into the `export` lines the init reads on descriptor 3 and the
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
