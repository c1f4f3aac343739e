/**
 * The data model of a session as stored in `<state>/sessions/<id>/session.json`: the profile and
 * snapshot it runs, the supervising codex-mmo process, and every Codex process (session root and
 * participants) with its status. Holds names and paths only, never a credential value.
 */
import type { TeamBudget, TeamUse } from './team-budget.js';

export const SESSION_FORMAT = 'codex-mmo-session/1';

export type SessionStatus = 'starting' | 'running' | 'ended' | 'failed' | 'stopped';
export type ProcessStatus = 'starting' | 'running' | 'idle' | 'ended' | 'failed' | 'stopped';

export interface SessionProcess {
  /** `root` for the session root process, `<role>-<n>` for a participant. */
  readonly id: string;
  readonly role: string;
  readonly kind: 'root' | 'participant';
  /** Process that asked for this participant (`root` or a participant id); absent for the root. */
  readonly owner?: string;
  readonly pid?: number;
  /** The process's private Codex home. */
  readonly home: string;
  readonly cwd: string;
  readonly status: ProcessStatus;
  readonly started: string;
  readonly ended?: string;
  readonly exit_code?: number;
  /** Why the process failed; credential values are masked. */
  readonly error?: string;
  /** The process of an earlier session whose Codex thread this one continues (`<session>/<id>`). */
  readonly resumed_from?: string;
}

export interface SessionRecord {
  readonly format: typeof SESSION_FORMAT;
  readonly id: string;
  readonly profile: string;
  readonly snapshot: string;
  readonly mode: 'run' | 'exec';
  /** The session this one continues (`session resume`), from that session's own snapshot. */
  readonly resumed_from?: string;
  readonly cwd: string;
  readonly started: string;
  readonly ended?: string;
  readonly status: SessionStatus;
  /** Codex's exit code once the session root process has ended. */
  readonly exit_code?: number;
  /** Why the session failed, when it did. */
  readonly error?: string;
  /** The supervising codex-mmo process (it owns the mesh socket and the participants). */
  readonly pid: number;
  /** The supervisor's start time (`/proc/<pid>/stat`), so a reused pid is never taken for it. */
  readonly pid_start?: string;
  /** Unix socket the session's `mmo_mesh` servers talk to. */
  readonly mesh_socket: string;
  /** Unix socket on which the supervisor answers `session approvals|approve|deny`. */
  readonly approvals_socket?: string;
  readonly processes: readonly SessionProcess[];
  /**
   * Servers the operator marked `shared = true` that a process of the session is granted: one
   * instance serves every process granted it (absent: none).
   */
  readonly shared_servers?: readonly string[];
  /**
   * Pinned servers no role of some process requires: answered from the pin's lease and started
   * on first use (absent: none).
   */
  readonly leased_servers?: readonly string[];
  /** Tools the gateway withheld because their surface differs from their pin (`tool-drift`). */
  readonly tool_drift?: readonly {
    readonly process: string;
    readonly server: string;
    readonly tool: string;
  }[];
  /** The team budget: its ceilings, what the session used when last recorded, refusals so far. */
  readonly budget?: {
    readonly ceilings: TeamBudget;
    readonly use: TeamUse;
    /** The most of each the session used while it ran. */
    readonly peak?: TeamUse;
    readonly refused: number;
  };
}

const ACTIVE: ReadonlySet<string> = new Set(['starting', 'running', 'idle']);

export function isActiveStatus(status: string): boolean {
  return ACTIVE.has(status);
}

/**
 * The status to show for a stored record: a session recorded as active whose supervising process
 * is gone failed without recording it (killed, machine restarted), and so did its processes. The
 * session's watchdog ends its Codex processes in that case; the record says what happened.
 */
export function effectiveRecord(
  record: SessionRecord,
  isAlive: (pid: number) => boolean,
): SessionRecord {
  if (!isActiveStatus(record.status) || isAlive(record.pid)) return record;
  const left = record.processes.filter(
    (p) => isActiveStatus(p.status) && p.pid !== undefined && isAlive(p.pid),
  );
  const gone = `the supervising codex-mmo process (pid ${record.pid}) is gone without recording how the session ended`;
  const error =
    left.length === 0
      ? `${gone}; none of the session's processes is running`
      : `${gone}; a process with the recorded pid of ${left.map((p) => `${p.id} (${String(p.pid)})`).join(', ')} still exists: if it is this session's, end it with kill`;
  // it did not end the way a session ends (killed, or its last record could not be written, as
  // on a full disk): shown as failed, never as a clean `ended`
  return {
    ...record,
    status: 'failed',
    error: record.error ?? error,
    processes: record.processes.map((p) =>
      left.includes(p) || !isActiveStatus(p.status) ? p : { ...p, status: 'ended' },
    ),
  };
}
