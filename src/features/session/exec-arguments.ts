/**
 * The Codex arguments `exec` accepts after `--` (pure). Its root runs under `codex app-server`,
 * which takes configuration overrides but none of `codex exec`'s own flags: `-c/--config
 * key=value` and `-m/--model NAME` are carried over, `--skip-git-repo-check` is accepted (the
 * app-server has no such check), anything else is refused with a message saying so.
 */

export interface ExecOverrides {
  readonly config: readonly string[];
  readonly model?: string;
}

export type ExecArgumentsResult =
  | { readonly ok: true; readonly overrides: ExecOverrides }
  | { readonly ok: false; readonly message: string };

export function parseExecCodexArgs(args: readonly string[]): ExecArgumentsResult {
  const config: string[] = [];
  let model: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const inline = /^(--config|--model)=(.*)$/.exec(arg);
    const name = inline?.[1] ?? arg;
    if (name === '--skip-git-repo-check') continue;
    if (name === '-c' || name === '--config' || name === '-m' || name === '--model') {
      const value = inline?.[2] ?? args[++i];
      if (value === undefined || value === '') {
        return { ok: false, message: `Codex option '${name}' needs a value` };
      }
      if (name === '-c' || name === '--config') config.push(value);
      else model = value;
      continue;
    }
    return {
      ok: false,
      message: `Codex option '${arg}' is not supported by exec: its root runs under 'codex app-server', which takes -c/--config key=value and -m/--model NAME`,
    };
  }
  return { ok: true, overrides: { config, ...(model !== undefined ? { model } : {}) } };
}
