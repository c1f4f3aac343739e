/**
 * Whether this machine can contain a session's processes: a PID namespace each (util-linux
 * `unshare`, in a user namespace, or as root without one) under `setpriv --pdeathsig KILL`, so it
 * dies with its starter. Found once per codex-mmo process by trying exactly that; unavailable (no
 * `unshare` or `setpriv`, namespaces not allowed) is reported with the reason.
 */
import { execFile, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** How contained processes are started, or why they cannot be. */
export type Containment =
  | {
      readonly available: true;
      /** `setpriv`, `unshare` and their options, up to (not including) the program it runs. */
      readonly prefix: readonly string[];
      /** An absolute `sleep`, for the container's init (the command's PATH may lack it). */
      readonly sleep: string;
    }
  | { readonly available: false; readonly reason: string };

/** Where `setpriv`, `unshare` and `sleep` are looked for (absolute: never the caller's PATH). */
export interface ContainmentTools {
  readonly setpriv: readonly string[];
  readonly unshare: readonly string[];
  readonly sleep: readonly string[];
  readonly shell: string;
  /** Whether this process runs as root (`process.geteuid() === 0`). */
  readonly root: boolean;
}

export const DEFAULT_CONTAINMENT_TOOLS: ContainmentTools = {
  setpriv: ['/usr/bin/setpriv', '/bin/setpriv'],
  unshare: ['/usr/bin/unshare', '/bin/unshare'],
  sleep: ['/usr/bin/sleep', '/bin/sleep'],
  shell: '/bin/sh',
  root: process.geteuid?.() === 0,
};

/** The shell every container's init runs in. */
export const CONTAINER_SHELL = '/bin/sh';

function executable(paths: readonly string[]): string | undefined {
  return paths.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What to try: each candidate prefix in order, or why none can work. */
function candidates(
  tools: ContainmentTools,
): { readonly prefixes: string[][]; readonly sleep: string } | Containment {
  const unshare = executable(tools.unshare);
  if (unshare === undefined) {
    return {
      available: false,
      reason: `util-linux \`unshare\` is not installed (looked at ${tools.unshare.join(', ')})`,
    };
  }
  const setpriv = executable(tools.setpriv);
  if (setpriv === undefined) {
    return {
      available: false,
      reason: `util-linux \`setpriv\` is not installed (looked at ${tools.setpriv.join(', ')})`,
    };
  }
  const sleep = executable(tools.sleep);
  if (sleep === undefined) {
    return { available: false, reason: `no \`sleep\` at ${tools.sleep.join(', ')}` };
  }
  const userNs = ['--user', '--map-current-user'];
  // the parent-death signal: `unshare` dies with the process that started it (even by
  // `kill -9`), and `--kill-child` then kills the namespace's first process, so all of it
  const prefixes = (tools.root ? [userNs, []] : [userNs]).map((extra) => [
    setpriv,
    '--pdeathsig',
    'KILL',
    unshare,
    ...extra,
    '--pid',
    '--fork',
    '--kill-child',
    '--mount-proc',
  ]);
  return { prefixes, sleep };
}

/** The first line of why a probe failed. */
function failureOf(stderr: string, error: Error | undefined, status: number | null): string {
  return (stderr || error?.message || `exit ${String(status)}`).trim().split('\n')[0] ?? '';
}

function unavailable(failure: string): Containment {
  return {
    available: false,
    reason: `\`setpriv\` and \`unshare\` cannot make a PID namespace here: ${failure}`,
  };
}

const PROBE_OPTIONS = { env: { PATH: '/usr/bin:/bin' }, timeout: 10_000 } as const;

/** Tries each way of making a PID namespace (in a user namespace; as root, also without). */
export function detectContainment(
  tools: ContainmentTools = DEFAULT_CONTAINMENT_TOOLS,
): Containment {
  const plan = candidates(tools);
  if ('available' in plan) return plan;
  let failure = '';
  for (const prefix of plan.prefixes) {
    const [command, ...args] = [...prefix, tools.shell, '-c', 'exit 0'];
    const probe = spawnSync(command, args, {
      ...PROBE_OPTIONS,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (probe.status === 0) return { available: true, prefix, sleep: plan.sleep };
    failure = failureOf(probe.stderr, probe.error, probe.status);
  }
  return unavailable(failure);
}

/** `detectContainment` without blocking: the probe runs while other work goes on. */
export async function detectContainmentAsync(
  tools: ContainmentTools = DEFAULT_CONTAINMENT_TOOLS,
): Promise<Containment> {
  const plan = candidates(tools);
  if ('available' in plan) return plan;
  let failure = '';
  for (const prefix of plan.prefixes) {
    const [command, ...args] = [...prefix, tools.shell, '-c', 'exit 0'];
    const probe = await new Promise<{ status: number | null; stderr: string; error?: Error }>(
      (resolve) => {
        execFile(command, args, PROBE_OPTIONS, (error, _stdout, stderr) => {
          const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
          resolve({ status, stderr, ...(error !== null ? { error } : {}) });
        });
      },
    );
    if (probe.status === 0) return { available: true, prefix, sleep: plan.sleep };
    failure = failureOf(probe.stderr, probe.error, probe.status);
  }
  return unavailable(failure);
}

let found: Containment | undefined;

/** This machine's containment, found on first use and then remembered. */
export function containment(): Containment {
  found ??= detectContainment();
  return found;
}

/** `containment()`, found without blocking when it is not known yet. */
export async function findContainment(): Promise<Containment> {
  found ??= await detectContainmentAsync();
  return found;
}
