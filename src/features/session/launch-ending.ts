/**
 * How a session ends once its root Codex exits: every pending request is denied, the broker, the
 * model wire and the gateway close, whatever Codex left behind (marked processes, sandbox mount
 * points, credential copies in the homes) is removed, and the session's status, exit code and
 * error are worked out, logged and recorded in `session.json`.
 */
import { describeError } from '../../foundation/errors.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { exitCodeOf } from '../../foundation/process/process-control.js';
import { endMarkedProcesses } from '../../foundation/process/session-marker.js';
import { removeMountPointLeftovers } from '../../runtime/session/sandbox-leftovers.js';
import {
  isActiveStatus,
  type SessionRecord,
  type SessionStatus,
} from '../../runtime/session/session-record.js';
import { stopRequested } from '../../runtime/session/session-store.js';
import type { RootProcess } from './launch-root.js';
import type { SessionServices } from './launch-services.js';
import type { SessionSignals } from './launch-signals.js';
import type { SessionOutcome } from './launch-types.js';
import type { SessionPlan } from './prepare-session.js';
import { removeSessionLeftovers } from './upkeep/session-leftovers.js';
import { withOwnWords } from './server-failures.js';

/**
 * Codex's own last words from its stderr, for a failure's message: its last error line (else its
 * last line), cut to 400 characters; empty when it said nothing.
 */
export function codexSaid(stderrTail: string): string {
  const lines = stderrTail
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const said = lines.findLast((l) => /^(error|fatal)\b/i.test(l)) ?? lines.at(-1);
  if (said === undefined) return '';
  return `; Codex said: ${said.length > 400 ? `${said.slice(0, 400)}…` : said}`;
}

/** Waits for the root to exit, ends the session and settles with how it ended. */
export async function endSession(
  plan: SessionPlan,
  services: SessionServices,
  root: RootProcess,
  signals: SessionSignals,
): Promise<SessionOutcome> {
  const { supervision, broker, wire, gateway, writer } = services;
  const { code, signal } = await root.exit;
  const execOutcome = root.execRoot !== undefined ? await root.execRoot.done : undefined;
  root.masked.end();
  signals.beginEnding();
  // nobody can answer once the session ends: everything still pending is denied first
  await supervision.queue.close('the session ended');
  await broker.close();
  await wire.close();
  await gateway.close();
  // whatever Codex left behind: Tool MCP servers in their own process groups, app-server daemons
  await endMarkedProcesses(plan.id);
  // and the sandbox's mount points in the working directories of the root and the participants
  await removeMountPointLeftovers([...root.mountPoints, ...broker.mountPoints()]);
  services.watch.release();
  services.budget.stop();
  // the copies of the operator's auth.json live only as long as the session, and so does the
  // rest of Codex's state in the homes
  await Promise.all([
    root.log.flushed(),
    services.serverLogs.flushed(),
    removeSessionLeftovers(plan.dir, writer.record),
  ]);
  // a Codex that cannot be started is codex-mmo's own failure: exit 1, not a shell's 127
  const codexExit = root.spawnError !== undefined ? 1 : exitCodeOf(code, signal);
  // `session stop` leaves a marker; a terminating signal forwarded to Codex stops it as well
  const stopped = signals.forwarded !== undefined || (await stopRequested(plan.dir));
  // a stopped session never reports success, even when Codex ended cleanly on the signal
  const exitCode =
    stopped && codexExit === 0 ? exitCodeOf(null, signals.forwarded ?? 'SIGTERM') : codexExit;
  const requiredFailure = /required MCP servers? failed to initiali[sz]e[^\n]*/i.exec(
    execOutcome?.error ?? root.stderrTail,
  );
  let status: SessionStatus;
  let error: string | undefined;
  if (stopped) status = 'stopped';
  else if (root.spawnError !== undefined) {
    status = 'failed';
    error = maskSecrets(
      `could not start ${plan.command}: ${describeError(root.spawnError)}${codexSaid(root.stderrTail)}`,
      root.secrets,
    );
  } else if (exitCode === 0) status = 'ended';
  else {
    status = 'failed';
    error =
      requiredFailure !== null
        ? maskSecrets(
            withOwnWords(requiredFailure[0].trim(), services.serverFailures),
            root.secrets,
          )
        : (execOutcome?.error ??
          maskSecrets(
            `Codex exited with code ${exitCode}${codexSaid(root.stderrTail)}`,
            root.secrets,
          ));
  }
  // a listener flooded with connections that did not authenticate is named in the cause
  const flood = status === 'failed' ? supervision.floodCause() : undefined;
  if (flood !== undefined) error = error === undefined ? flood : `${error}; ${flood}`;
  const endedAt = new Date().toISOString();
  const rootStatus = status === 'stopped' ? 'stopped' : exitCode === 0 ? 'ended' : 'failed';
  supervision.event({
    process: 'root',
    role: plan.rootRole,
    type: 'process.ended',
    status: rootStatus,
    exit_code: exitCode,
    ...(error !== undefined ? { text: error } : {}),
  });
  await supervision.close();
  await writer.update((r) => {
    const next: SessionRecord = {
      ...r,
      status,
      ended: endedAt,
      exit_code: exitCode,
      ...(error !== undefined ? { error } : {}),
      processes: r.processes.map((p) =>
        p.kind === 'root'
          ? { ...p, status: rootStatus, ended: endedAt, exit_code: exitCode }
          : isActiveStatus(p.status)
            ? { ...p, status: 'stopped', ended: p.ended ?? endedAt }
            : p,
      ),
    };
    return next;
  });
  return {
    exitCode,
    status,
    record: writer.record,
    ...(execOutcome?.finalMessage !== undefined ? { finalMessage: execOutcome.finalMessage } : {}),
  };
}
