/**
 * Watches a launched session's processes: each participant's start and end becomes a session
 * event and an entry of `session.json`, and the watchdog is kept told of every live participant
 * process group and Tool MCP server group, to end them should this process be killed outright.
 */
import { join } from 'node:path';

import type { SessionSupervision } from '../../runtime/approvals/session-supervision.js';
import type { ParticipantInfo } from '../../runtime/protocol/mesh-protocol.js';
import { isActiveStatus, type SessionProcess } from '../../runtime/session/session-record.js';
import { sessionPaths } from '../../runtime/session/session-store.js';
import type { RecordWriter } from './record-writer.js';
import { startWatchdog, type Watchdog, type WatchdogSession } from './watchdog.js';

export interface SessionWatch {
  /** The Tool MCP servers' process groups changed. */
  groups(pids: readonly number[]): void;
  /** The broker's participants changed. */
  participants(list: readonly ParticipantInfo[]): void;
  /** Starts the watchdog over the root process `pid` and the groups known so far. */
  guard(pid: number, session: WatchdogSession): void;
  /** The session ended as it should: the watchdog stands down. */
  release(): void;
}

function participantProcess(sessionDir: string, info: ParticipantInfo): SessionProcess {
  const out: { -readonly [K in keyof SessionProcess]: SessionProcess[K] } = {
    id: info.participant,
    role: info.role,
    kind: 'participant',
    owner: info.owner,
    home: join(sessionPaths(sessionDir).homes, info.participant),
    cwd: info.cwd,
    status: info.status,
    started: info.started,
  };
  if (info.pid !== undefined) out.pid = info.pid;
  if (info.ended !== undefined) out.ended = info.ended;
  if (info.error !== undefined) out.error = info.error;
  if (info.resumed_from !== undefined) out.resumed_from = info.resumed_from;
  return out;
}

export function watchSession(
  sessionDir: string,
  supervision: SessionSupervision,
  writer: RecordWriter,
): SessionWatch {
  const seen = new Map<string, string>();
  let participants: readonly ParticipantInfo[] = [];
  let serverGroups: readonly number[] = [];
  let watchdog: Watchdog | undefined;
  const watchParticipants = (): void => {
    watchdog?.setGroups([
      ...participants.flatMap((p) =>
        p.pid !== undefined && isActiveStatus(p.status) ? [p.pid] : [],
      ),
      ...serverGroups,
    ]);
  };
  return {
    groups(pids) {
      serverGroups = pids;
      watchParticipants();
    },
    participants(list) {
      participants = list;
      for (const p of list) {
        const before = seen.get(p.participant);
        if (before === p.status) continue;
        seen.set(p.participant, p.status);
        if (before === undefined) {
          supervision.event({ process: p.participant, role: p.role, type: 'process.started' });
        }
        if (!isActiveStatus(p.status)) {
          supervision.event({
            process: p.participant,
            role: p.role,
            type: 'process.ended',
            status: p.status,
            ...(p.error !== undefined ? { text: p.error } : {}),
          });
        }
      }
      watchParticipants();
      void writer.update((r) => ({
        ...r,
        processes: [
          ...r.processes.filter((p) => p.kind === 'root'),
          ...participants.map((p) => participantProcess(sessionDir, p)),
        ],
      }));
    },
    guard(pid, session) {
      // once: the root is guarded from its spawn
      if (watchdog !== undefined) return;
      watchdog = startWatchdog(pid, undefined, session);
      watchParticipants();
    },
    release() {
      watchdog?.release();
    },
  };
}
