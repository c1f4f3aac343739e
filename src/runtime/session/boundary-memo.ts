/**
 * Remembers what this machine's boundary probes found (a PID namespace, masks, the host view's
 * `bwrap`), so a session start need not run them again: an entry in `<data>/machine-probes/<key>.json`
 * holds only probes that all succeeded, keyed by a SHA-256 over everything that decides them: the
 * boot, this process's user, groups, namespaces, capabilities, seccomp and security label, the
 * kernel's namespace settings, and each tool's real path, device, inode, size and times. Any
 * change misses and probes again; a failed probe is never remembered.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

import { readJsonEntry } from '../../config/registry/read-config-file.js';
import { writeFileAtomic } from '../../foundation/paths/atomic-write.js';
import { MEMO_ENTRIES_KEPT, pruneEntries } from '../../foundation/paths/prune-entries.js';

import {
  DEFAULT_CONTAINMENT_TOOLS,
  findContainment,
  possibleContainments,
  rememberContainment,
  type Containment,
} from '../../foundation/process/containment.js';
import {
  bwrapCandidates,
  findHostView,
  type HostView,
} from '../../foundation/process/host-view.js';

/** Directory of the entries inside the data dir. */
export const BOUNDARY_MEMO_DIR = 'machine-probes';
const FORMAT = 'codex-mmo-machine-probes/1';

/** What the probes found: the containment and, with a Codex binary, the host view. */
export interface MachineBoundary {
  readonly contained: Containment;
  readonly view: HostView | undefined;
}

/** Files whose text decides whether namespaces, masks and the view can be made here. */
const STATE_FILES = [
  '/proc/sys/kernel/random/boot_id',
  '/proc/sys/kernel/unprivileged_userns_clone',
  '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
  '/proc/sys/user/max_user_namespaces',
  '/proc/sys/user/max_pid_namespaces',
  '/proc/sys/user/max_mnt_namespaces',
  '/proc/self/attr/current',
] as const;

/** This process's lines of /proc/self/status that bear on what it may start. */
const STATUS_FIELDS = /^(Uid|Gid|Groups|NoNewPrivs|Seccomp|Seccomp_filters|CapEff|CapBnd):.*$/gm;

async function text(path: string): Promise<string> {
  return readFile(path, 'utf8').catch(() => '-');
}

/** A file as its real path, device, inode, mode, size and times; a directory without its times. */
async function identity(path: string): Promise<string> {
  try {
    const real = await realpath(path);
    const info = await stat(real, { bigint: true });
    const kept = [real, info.dev, info.ino, info.mode];
    // a directory's times change with every file made in it (the probes' `/tmp`)
    return (info.isDirectory() ? kept : [...kept, info.size, info.mtimeNs, info.ctimeNs]).join(' ');
  } catch {
    return `${path} -`;
  }
}

async function namespaces(): Promise<string> {
  const names = ['user', 'pid', 'mnt', 'net', 'cgroup'];
  const links = await Promise.all(
    names.map(async (name) => {
      try {
        return (await stat(`/proc/self/ns/${name}`)).ino;
      } catch {
        return '-';
      }
    }),
  );
  return links.join(' ');
}

/** The entry's key for probes run with `codexCommand`'s `bwrap` (undefined: no Codex). */
export async function boundaryMemoKey(codexCommand: string | undefined): Promise<string> {
  const tools = DEFAULT_CONTAINMENT_TOOLS;
  const binaries = [
    ...tools.setpriv,
    ...tools.unshare,
    ...tools.sleep,
    ...tools.mount,
    ...tools.mkdir,
    tools.shell,
    tools.probeDir,
    ...(codexCommand !== undefined ? bwrapCandidates(codexCommand) : []),
  ];
  const parts = await Promise.all([
    ...STATE_FILES.map(text),
    text('/proc/self/status').then((s) => (s.match(STATUS_FIELDS) ?? []).join('\n')),
    namespaces(),
    ...binaries.map(identity),
  ]);
  return createHash('sha256')
    .update([FORMAT, codexCommand ?? '-', ...parts].join('\0'))
    .digest('hex');
}

/**
 * Whether `value` is an entry of this format whose probes succeeded, naming only programs a probe
 * here can find: the entry names what the supervisor runs, so nothing else is taken from it.
 */
function isRemembered(
  value: unknown,
  codexCommand: string | undefined,
  firstWay: Containment | undefined,
): value is { contained: Containment; view: HostView | null } {
  if (typeof value !== 'object' || value === null) return false;
  const { format, contained, view } = value as Record<string, unknown>;
  if (format !== FORMAT) return false;
  // the first way a probe tries: a later one (root without a user namespace) is probed each time
  if (firstWay === undefined || !isDeepStrictEqual(firstWay, contained)) return false;
  if (codexCommand === undefined) return view === null;
  return bwrapCandidates(codexCommand).some((bwrap) =>
    isDeepStrictEqual(view, { available: true, bwrap }),
  );
}

/**
 * This machine's containment and host view for `codexCommand`: remembered, or probed (and
 * remembered when every probe succeeded). The containment found becomes `containment()`'s.
 */
export async function machineBoundary(
  dataDir: string,
  codexCommand: string | undefined,
): Promise<MachineBoundary> {
  const key = await boundaryMemoKey(codexCommand);
  const file = join(dataDir, BOUNDARY_MEMO_DIR, `${key}.json`);
  const stored = await readJsonEntry(file);
  const firstWay = possibleContainments()[0];
  if (isRemembered(stored, codexCommand, firstWay)) {
    rememberContainment(stored.contained);
    return { contained: stored.contained, view: stored.view ?? undefined };
  }
  const [contained, view] = await Promise.all([
    findContainment(),
    codexCommand !== undefined ? findHostView(bwrapCandidates(codexCommand)) : undefined,
  ]);
  if (isDeepStrictEqual(firstWay, contained) && (view === undefined || view.available)) {
    await writeFileAtomic(
      file,
      `${JSON.stringify({ format: FORMAT, contained, view: view ?? null })}\n`,
      0o600,
      { durable: false },
    ).catch(() => undefined);
    // an entry per boot and Codex binary: the newest few are all a machine needs
    await pruneEntries(join(dataDir, BOUNDARY_MEMO_DIR), MEMO_ENTRIES_KEPT);
  }
  return { contained, view };
}
