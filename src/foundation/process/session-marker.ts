/**
 * Finding a session's processes without trusting a bare pid: every process a session starts —
 * Codex, each stdio MCP server (through its rendered `env`), `mmo_mesh`, participants' app-servers
 * and whatever they start with their environment — carries `CODEX_MMO_SESSION=<id>`. Ending a
 * session signals exactly the processes whose environment holds that entry, so a reused pid of a
 * stranger is never signalled; a supervisor is recognised by its pid and start time.
 */
import { readdir, readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';

/** The variable that marks a process as belonging to a session (a `CODEX_MMO_*` name). */
export const SESSION_MARKER_ENV = 'CODEX_MMO_SESSION';

/** Pids (other than this process) whose environment holds `CODEX_MMO_SESSION=<sessionId>`. */
export async function markedProcesses(sessionId: string): Promise<number[]> {
  const entry = `${SESSION_MARKER_ENV}=${sessionId}`;
  const names = await readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name) || Number(name) === process.pid) return;
      const environ = await readFile(`/proc/${name}/environ`, 'latin1').catch(() => '');
      if (environ.split('\0').includes(entry)) found.push(Number(name));
    }),
  );
  return found.sort((a, b) => a - b);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile
  }
}

/**
 * Ends every marked process of the session: SIGTERM, then SIGKILL for what is still there after
 * `graceMs`. Each round looks the processes up again. Resolves with how many were found first.
 */
export async function endMarkedProcesses(sessionId: string, graceMs = 3000): Promise<number> {
  const first = await markedProcesses(sessionId);
  if (first.length === 0) return 0;
  for (const pid of first) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = first;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = await markedProcesses(sessionId);
  }
  for (const pid of left) signal(pid, 'SIGKILL');
  return first.length;
}

/** The start time of `pid` (clock ticks since boot, `/proc/<pid>/stat` field 22), if it exists. */
export function processStartTime(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // the command name (field 2) may hold spaces and parentheses: count from the last ')'
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields[19];
}

/** Whether `pid` is still the process that started at `startTime` (no start time: pid only). */
export function isSameProcess(pid: number, startTime: string | undefined): boolean {
  const now = processStartTime(pid);
  if (now === undefined) return false;
  return startTime === undefined || now === startTime;
}

/**
 * A liveness check for a session record: its supervisor counts as alive only while its pid still
 * belongs to the process that started at the recorded time; other pids by `kill(pid, 0)`.
 */
export function livenessFor(
  supervisorPid: number,
  supervisorStart: string | undefined,
  isAlive: (pid: number) => boolean,
): (pid: number) => boolean {
  return (pid) =>
    pid === supervisorPid ? isAlive(pid) && isSameProcess(pid, supervisorStart) : isAlive(pid);
}
