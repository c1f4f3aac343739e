/**
 * Whether this machine can contain a session's processes: a PID namespace each (util-linux
 * `unshare`, in a user namespace, or as root without one) under `setpriv --pdeathsig KILL`, so it
 * dies with its starter; and whether such a container can also mask directories (its own mount
 * namespace, then a nested user namespace giving the command its own uid back). Found once per
 * codex-mmo process by trying exactly that; what is unavailable is reported with the reason.
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
      /** How a container masks directories; absent where it cannot. */
      readonly masking?: Masking;
    }
  | { readonly available: false; readonly reason: string };

/**
 * A container whose first process may mount (root of its user namespace): it mounts the masks,
 * then runs the command in a nested user namespace under its own uid and gid, where nothing of
 * the container's mounts can be undone.
 */
export interface Masking {
  /** `setpriv`, `unshare` and their options, as `prefix`, the user mapped to root. */
  readonly prefix: readonly string[];
  readonly mount: string;
  readonly mkdir: string;
  /** The nested user namespace, up to the command. */
  readonly nest: readonly string[];
}

/** Where `setpriv`, `unshare` and `sleep` are looked for (absolute: never the caller's PATH). */
export interface ContainmentTools {
  readonly setpriv: readonly string[];
  readonly unshare: readonly string[];
  readonly sleep: readonly string[];
  readonly mount: readonly string[];
  readonly mkdir: readonly string[];
  readonly shell: string;
  /** Whether this process runs as root (`process.geteuid() === 0`). */
  readonly root: boolean;
  /** This process's uid and gid, given back to a masked container's command. */
  readonly uid: number;
  readonly gid: number;
  /** An existing directory the masking probe mounts over, inside its own namespace only. */
  readonly probeDir: string;
}

export const DEFAULT_CONTAINMENT_TOOLS: ContainmentTools = {
  setpriv: ['/usr/bin/setpriv', '/bin/setpriv'],
  unshare: ['/usr/bin/unshare', '/bin/unshare'],
  sleep: ['/usr/bin/sleep', '/bin/sleep'],
  mount: ['/usr/bin/mount', '/bin/mount'],
  mkdir: ['/usr/bin/mkdir', '/bin/mkdir'],
  shell: '/bin/sh',
  root: process.geteuid?.() === 0,
  uid: process.geteuid?.() ?? 0,
  gid: process.getegid?.() ?? 0,
  probeDir: '/tmp',
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

interface Plan {
  readonly prefixes: string[][];
  readonly sleep: string;
  /** The masking to try with a found prefix, or undefined without `mount` or `mkdir`. */
  readonly masking: ((prefix: readonly string[]) => Masking) | undefined;
}

/** What to try: each candidate prefix in order, or why none can work. */
function candidates(tools: ContainmentTools): Plan | Containment {
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
  const mount = executable(tools.mount);
  const mkdir = executable(tools.mkdir);
  const masking =
    mount === undefined || mkdir === undefined
      ? undefined
      : (prefix: readonly string[]): Masking => ({
          prefix: prefix.map((arg) => (arg === '--map-current-user' ? '--map-root-user' : arg)),
          mount,
          mkdir,
          nest: [
            unshare,
            '--user',
            `--map-user=${String(tools.uid)}`,
            `--map-group=${String(tools.gid)}`,
            '--',
          ],
        });
  return { prefixes, sleep, masking };
}

/** The masking probe: a tmpfs over `probeDir`, then the nested namespace runs `true`. */
function maskingProbe(masking: Masking, tools: ContainmentTools): string[] {
  const script = `"$1" -t tmpfs -o size=4k codex-mmo-probe "$2" && shift 2 && exec "$@" ${tools.shell} -c 'exit 0'`;
  return [
    ...masking.prefix,
    tools.shell,
    '-c',
    script,
    'probe',
    masking.mount,
    tools.probeDir,
    ...masking.nest,
  ];
}

/** The containment found with `prefix`, with its masking when the probe of that succeeds. */
function found(prefix: string[], plan: Plan, masks: boolean): Containment {
  const masking = masks ? plan.masking?.(prefix) : undefined;
  return {
    available: true,
    prefix,
    sleep: plan.sleep,
    ...(masking !== undefined ? { masking } : {}),
  };
}

/**
 * Every containment a successful probe can find here, with masks: what a remembered result must
 * be one of (it names the programs a container runs).
 */
export function possibleContainments(
  tools: ContainmentTools = DEFAULT_CONTAINMENT_TOOLS,
): Containment[] {
  const plan = candidates(tools);
  return 'available' in plan ? [] : plan.prefixes.map((prefix) => found(prefix, plan, true));
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
    if (probe.status === 0) {
      const masking = plan.masking?.(prefix);
      const [m, ...margs] = masking === undefined ? [] : maskingProbe(masking, tools);
      const masks = m !== undefined && spawnSync(m, margs, PROBE_OPTIONS).status === 0;
      return found(prefix, plan, masks);
    }
    failure = failureOf(probe.stderr, probe.error, probe.status);
  }
  return unavailable(failure);
}

interface ProbeResult {
  readonly status: number | null;
  readonly stderr: string;
  readonly error?: Error;
}

function run(command: string, args: readonly string[]): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(command, args, PROBE_OPTIONS, (error, _stdout, stderr) => {
      const status = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ status, stderr, ...(error !== null ? { error } : {}) });
    });
  });
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
    const probe = await run(command, args);
    if (probe.status === 0) {
      const masking = plan.masking?.(prefix);
      const [m, ...margs] = masking === undefined ? [] : maskingProbe(masking, tools);
      const masks = m !== undefined && (await run(m, margs)).status === 0;
      return found(prefix, plan, masks);
    }
    failure = failureOf(probe.stderr, probe.error, probe.status);
  }
  return unavailable(failure);
}

let detected: Containment | undefined;

/** This machine's containment, found on first use and then remembered. */
export function containment(): Containment {
  detected ??= detectContainment();
  return detected;
}

/** Takes `found` (a containment probed before, and remembered) as this machine's. */
export function rememberContainment(found: Containment): void {
  detected ??= found;
}

/** `containment()`, found without blocking when it is not known yet. */
export async function findContainment(): Promise<Containment> {
  detected ??= await detectContainmentAsync();
  return detected;
}
