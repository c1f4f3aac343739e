/**
 * Whether this machine can contain a session's processes: a PID namespace each (util-linux
 * `unshare`, in a user namespace, or as root without one) under `setpriv --pdeathsig KILL`, so it
 * dies with its starter. Found once per codex-mmo process by trying exactly that; unavailable (no
 * `unshare` or `setpriv`, namespaces not allowed) is reported with the reason.
 */
import { spawnSync } from 'node:child_process';
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

/** Tries each way of making a PID namespace (in a user namespace; as root, also without). */
export function detectContainment(
  tools: ContainmentTools = DEFAULT_CONTAINMENT_TOOLS,
): Containment {
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
  const candidates = tools.root ? [userNs, []] : [userNs];
  let failure = '';
  for (const extra of candidates) {
    // the parent-death signal: `unshare` dies with the process that started it (even by
    // `kill -9`), and `--kill-child` then kills the namespace's first process, so all of it
    const prefix = [
      setpriv,
      '--pdeathsig',
      'KILL',
      unshare,
      ...extra,
      '--pid',
      '--fork',
      '--kill-child',
      '--mount-proc',
    ];
    const probe = spawnSync(setpriv, [...prefix.slice(1), tools.shell, '-c', 'exit 0'], {
      env: { PATH: '/usr/bin:/bin' },
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 10_000,
      encoding: 'utf8',
    });
    if (probe.status === 0) return { available: true, prefix, sleep };
    failure =
      (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`)
        .trim()
        .split('\n')[0] ?? '';
  }
  return {
    available: false,
    reason: `\`setpriv\` and \`unshare\` cannot make a PID namespace here: ${failure}`,
  };
}

let found: Containment | undefined;

/** This machine's containment, found on first use and then remembered. */
export function containment(): Containment {
  found ??= detectContainment();
  return found;
}
