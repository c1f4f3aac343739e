/**
 * Whether this machine can contain a session's processes: each one is started in a new PID
 * namespace (util-linux `unshare`; with a user namespace when not root), whose processes the
 * kernel kills together when its first process ends. Found once per codex-mmo process by trying
 * it; unavailable (no `unshare`, namespaces not allowed) is reported with the reason.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** How contained processes are started, or why they cannot be. */
export type Containment =
  | {
      readonly available: true;
      /** `unshare` and its options, up to (not including) the program it runs. */
      readonly prefix: readonly string[];
      /** An absolute `sleep`, for the container's init (the command's PATH may lack it). */
      readonly sleep: string;
    }
  | { readonly available: false; readonly reason: string };

/** Where `unshare` and `sleep` are looked for (absolute: never the caller's PATH). */
export interface ContainmentTools {
  readonly unshare: readonly string[];
  readonly sleep: readonly string[];
  readonly shell: string;
  /** Whether this process runs as root (`process.geteuid() === 0`). */
  readonly root: boolean;
}

export const DEFAULT_CONTAINMENT_TOOLS: ContainmentTools = {
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

/** Tries each way of making a PID namespace (root first without a user namespace). */
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
  const sleep = executable(tools.sleep);
  if (sleep === undefined) {
    return { available: false, reason: `no \`sleep\` at ${tools.sleep.join(', ')}` };
  }
  const userNs = ['--user', '--map-current-user'];
  const candidates = tools.root ? [userNs, []] : [userNs];
  let failure = '';
  for (const extra of candidates) {
    const prefix = [unshare, ...extra, '--pid', '--fork', '--kill-child', '--mount-proc'];
    const probe = spawnSync(
      prefix[0] ?? unshare,
      [...prefix.slice(1), tools.shell, '-c', 'exit 0'],
      {
        env: { PATH: '/usr/bin:/bin' },
        stdio: ['ignore', 'ignore', 'pipe'],
        timeout: 10_000,
        encoding: 'utf8',
      },
    );
    if (probe.status === 0) return { available: true, prefix, sleep };
    failure =
      (probe.stderr || probe.error?.message || `exit ${String(probe.status)}`)
        .trim()
        .split('\n')[0] ?? '';
  }
  return { available: false, reason: `\`unshare\` cannot make a PID namespace here: ${failure}` };
}

let found: Containment | undefined;

/** This machine's containment, found on first use and then remembered. */
export function containment(): Containment {
  found ??= detectContainment();
  return found;
}
