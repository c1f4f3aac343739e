/**
 * Runs the codex-mmo CLI in-process with captured output, a given environment and home, for
 * command tests. `runCli(['tool-mcp', 'list', '--json'], { env, home })`.
 */
import { run } from '../../src/cli/router.js';
import type { Environment } from '../../src/foundation/paths/directories.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (throws if it is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- callers name the shape they expect
  json<T = unknown>(): T;
}

export async function runCli(
  args: readonly string[],
  options: { env?: Environment; home?: string; cwd?: string } = {},
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const home = options.home ?? '/nonexistent-home';
  const code = await run(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: options.env ?? { PATH: process.env.PATH, HOME: home },
    cwd: options.cwd ?? process.cwd(),
    home,
    isTty: false,
  });
  return {
    code,
    stdout,
    stderr,
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- see CliResult.json
    json<T>() {
      return JSON.parse(stdout) as T;
    },
  };
}
