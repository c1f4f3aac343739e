/**
 * Carries out a prepared session: starts its services (session directory, approval queue and
 * event log, gateway, model wire, broker) and the session root Codex, supervises it, and when
 * Codex exits stops every participant and records how the session ended. Signals are forwarded
 * by the caller through `RunningSession.signal`; a watchdog ends Codex and the participants
 * should this process be killed without the chance to do so itself.
 */
import { join } from 'node:path';

import { sessionSocketDir } from '../../foundation/process/private-socket.js';
import { endSession } from './launch-ending.js';
import { startRootProcess } from './launch-root.js';
import { startSessionServices } from './launch-services.js';
import { sessionSignals } from './launch-signals.js';
import type { LaunchContext, RunningSession } from './launch-types.js';
import type { SessionPlan } from './prepare-session.js';

export type { LaunchContext, RunningSession, SessionOutcome } from './launch-types.js';

/** Longest Unix socket path we use (the OS limit is 104–108 bytes). */
export const MAX_SOCKET_PATH = 100;

/**
 * `<session>/mesh.sock`, or `<tmp>/codex-mmo-<id>/mesh.sock` (a private directory of the session,
 * shared with its other sockets) when that would be too long.
 */
export function chooseSocketPath(sessionDir: string, sessionId: string, tmpDir: string): string {
  const inSession = join(sessionDir, 'mesh.sock');
  if (Buffer.byteLength(inSession) <= MAX_SOCKET_PATH) return inSession;
  return join(sessionSocketDir(tmpDir, sessionId), 'mesh.sock');
}

/** Creates the session on disk, starts the broker and Codex; `done` settles when Codex exits. */
export async function launchSession(
  plan: SessionPlan,
  context: LaunchContext,
): Promise<RunningSession> {
  const services = await startSessionServices(plan, context);
  const root = await startRootProcess(plan, context, services);
  const signals = sessionSignals(plan, services, root);
  const done = endSession(plan, services, root, signals);
  return {
    id: plan.id,
    dir: plan.dir,
    pid: root.pid,
    broker: services.broker,
    modelWire: services.wire,
    supervision: services.supervision,
    signal(signal: NodeJS.Signals): void {
      signals.signal(signal);
    },
    done,
  };
}
