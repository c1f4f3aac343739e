/**
 * Asks the real Codex binary about a rendered Codex home: `codex app-server --strict-config`
 * (the cheapest full validator, which also reports role files it drops as malformed) and
 * `codex mcp list|get --json` (the servers as Codex parsed them). Runs with stdin closed.
 */
import { spawn } from 'node:child_process';

import { ProcessError, describeError } from '../../foundation/errors.js';
import type { Environment } from '../../foundation/paths/directories.js';

/** Default bound on one Codex invocation. */
export const CODEX_CLI_TIMEOUT_MS = 30_000;

export interface CodexRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CodexCliOptions {
  /** Environment of the Codex process; `CODEX_HOME` is set on top. Needs PATH for the npm shim. */
  readonly env?: Environment;
  readonly timeoutMs?: number;
  readonly cwd?: string;
}

const ANSI = new RegExp(String.raw`\u001b\[[0-9;?]*[ -/]*[@-~]`, 'g');

/** Removes terminal colour codes from Codex's log output. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

/** Runs `codexBin args…` with `CODEX_HOME=codexHome`, stdin from /dev/null, bounded in time. */
export function runCodex(
  codexBin: string,
  codexHome: string,
  args: readonly string[],
  options: CodexCliOptions = {},
): Promise<CodexRun> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
  env.CODEX_HOME = codexHome;
  const timeoutMs = options.timeoutMs ?? CODEX_CLI_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(codexBin, [...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      });
    } catch (error) {
      reject(
        new ProcessError('process-failed', `cannot start ${codexBin}: ${describeError(error)}`, {
          cause: error,
        }),
      );
      return;
    }
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new ProcessError(
          'timeout',
          `${codexBin} ${args.join(' ')} did not finish within ${timeoutMs} ms`,
        ),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(
        new ProcessError('process-failed', `cannot start ${codexBin}: ${describeError(error)}`, {
          cause: error,
        }),
      );
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr) });
    });
  });
}

export interface StrictConfigResult {
  /** Exit 0 and no role file dropped as malformed. */
  readonly ok: boolean;
  readonly exitCode: number | null;
  /** Codex's stdout and stderr, colour codes removed. */
  readonly output: string;
  /** Each "Ignoring malformed agent role definition" reason Codex logged, deduplicated. */
  readonly malformedRoles: readonly string[];
}

/**
 * `codex app-server --strict-config </dev/null` on `codexHome`: exits 0 for a valid config and
 * 1 with `file:line:col: message` otherwise. Codex only warns about malformed role files, so those
 * warnings are collected too and make the check fail.
 */
export async function strictConfigCheck(
  codexBin: string,
  codexHome: string,
  env?: Environment,
  options: Omit<CodexCliOptions, 'env'> = {},
): Promise<StrictConfigResult> {
  const run = await runCodex(codexBin, codexHome, ['app-server', '--strict-config'], {
    ...options,
    ...(env !== undefined ? { env } : {}),
  });
  const output = `${run.stdout}${run.stderr}`;
  const malformed = new Set<string>();
  for (const match of output.matchAll(/Ignoring malformed agent role definition: ([^\n]*)/g)) {
    malformed.add((match[1] ?? '').trim());
  }
  return {
    ok: run.exitCode === 0 && malformed.size === 0,
    exitCode: run.exitCode,
    output,
    malformedRoles: [...malformed],
  };
}

function parseJsonOutput(run: CodexRun, what: string): unknown {
  if (run.exitCode !== 0) {
    const reason = run.stderr.split('\n').find((line) => /error/i.test(line)) ?? run.stderr;
    throw new ProcessError(
      'process-failed',
      `${what} exited with ${String(run.exitCode)}: ${reason.trim()}`,
    );
  }
  try {
    return JSON.parse(run.stdout) as unknown;
  } catch {
    throw new ProcessError('process-failed', `${what} printed no JSON`);
  }
}

/** `codex mcp list --json`: every configured server as Codex parsed it. */
export async function codexMcpList(
  codexBin: string,
  codexHome: string,
  env?: Environment,
): Promise<unknown> {
  const run = await runCodex(codexBin, codexHome, ['mcp', 'list', '--json'], {
    ...(env !== undefined ? { env } : {}),
  });
  return parseJsonOutput(run, 'codex mcp list --json');
}

/** `codex mcp get NAME --json`: one server, including its tool filters. */
export async function codexMcpGet(
  codexBin: string,
  codexHome: string,
  name: string,
  env?: Environment,
): Promise<unknown> {
  const run = await runCodex(codexBin, codexHome, ['mcp', 'get', name, '--json'], {
    ...(env !== undefined ? { env } : {}),
  });
  return parseJsonOutput(run, `codex mcp get ${name} --json`);
}
