/**
 * The first half of a session's start: creates the session directory, starts the approval queue
 * and event log, the session gateway every Tool MCP server is reached through, the model wire,
 * and the session broker (the `mmo_mesh` back end that owns participants), writes the root
 * process's private Codex home and the first `session.json`. What started is closed if any fails.
 */
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

import { approvalGate, type ApprovalGate } from '../../runtime/approvals/approval-gate.js';
import { approvalSocketPath } from '../../runtime/approvals/approval-socket.js';
import { SUPERVISOR_USER } from '../../runtime/approvals/approval-queue.js';
import { SessionSupervision } from '../../runtime/approvals/session-supervision.js';
import type { ServerNotification } from '../../runtime/codex/app-server-protocol.js';
import type { ServerFailure } from '../../runtime/gateway/server-failure.js';
import type { DriftReport } from '../../runtime/gateway/gateway-hub.js';
import type { CallAsker } from '../../runtime/gateway/held-calls.js';
import { codexAsks } from '../../runtime/gateway/call-approvals.js';
import {
  SessionGateway,
  driftDiagnostic,
  gatewaySocketPath,
  type ProcessLaunch,
} from '../../runtime/gateway/session-gateway.js';
import { SessionBroker, type BrokerOptions } from '../../runtime/mesh/session-broker.js';
import { serveMeshOn } from '../../runtime/mesh/serve-mesh.js';
import type { ModelWire } from '../../runtime/model-wire/model-wire.js';
import { startSessionWire } from '../../runtime/model-wire/session-wire.js';
import { AppendQueues } from '../../foundation/append-queue.js';
import type { ListenerFlood } from '../../foundation/process/connection-limits.js';
import { DEFAULT_APPROVAL_TIMEOUT_SEC } from '../../runtime/protocol/approval-types.js';
import { clearEndedHomes, writeProcessHome } from '../../runtime/session/codex-home.js';
import { copyRollouts } from '../../runtime/session/rollout-threads.js';
import { createSessionDir, type SessionPaths } from '../../runtime/session/session-store.js';
import { watchSession, type SessionWatch } from './launch-watch.js';
import type { LaunchContext } from './launch-types.js';
import type { SessionPlan } from './prepare-session.js';
import { RecordWriter } from './record-writer.js';
import { BudgetWatch } from './budget-watch.js';
import { withinOperator } from '../../runtime/session/team-budget.js';
import { diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { DEFAULT_MAX_PARTICIPANTS } from '../../runtime/mesh/participant-cap.js';
import { refusedEvent, unofferedRecord } from './refused-calls.js';
import { failureRequired, serverFailureDiagnostic, serverFailureEvent } from './server-failures.js';

/** Everything a launched session runs besides its root Codex process. */
export interface SessionServices {
  readonly paths: SessionPaths;
  readonly writer: RecordWriter;
  readonly supervision: SessionSupervision;
  readonly watch: SessionWatch;
  readonly gateway: SessionGateway;
  readonly wire: ModelWire;
  readonly broker: SessionBroker;
  /** The root process's home and environment, its Tool MCP servers replaced by relays. */
  readonly relayed: ProcessLaunch;
  readonly gate: ApprovalGate;
  /** The role whose thread a notification of `process` is about (`root`: the process root's). */
  readonly threadRole: (process: string, root: string, n: ServerNotification) => string;
  /** Servers the gateway saw fail, in their own words. */
  readonly serverFailures: readonly ServerFailure[];
  /** The team budget's use, ceilings and refusals. */
  readonly budget: BudgetWatch;
  /** Each server's stderr log (flushed before the session's end is recorded). */
  readonly serverLogs: AppendQueues;
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** The session's queue as the gateway asks it; an answer at the TUI is the session user's. */
function queueAsker(supervision: SessionSupervision): CallAsker {
  return {
    timeoutSec: supervision.queue.timeoutSec,
    open: (what) => supervision.queue.open(what),
    answerFromTui: (id, decision) => {
      supervision.queue.answer(id, decision, osUser(), 'tui');
    },
    withdraw: (id, reason) => {
      supervision.queue.answer(id, 'deny', SUPERVISOR_USER, 'withdrawn', reason);
    },
  };
}

/** The root's routes, relay home and environment (an interactive root's calls asked about). */
function rootThroughGateway(
  plan: SessionPlan,
  context: LaunchContext,
  gateway: SessionGateway,
): ProcessLaunch {
  const rootProcess = context.plan.processes.find((p) => p.root === context.plan.root);
  if (rootProcess === undefined) return { rendered: plan.rendered, env: plan.env, tokens: [] };
  return gateway.prepareProcess({
    processId: 'root',
    process: rootProcess,
    rendered: plan.rendered,
    env: plan.env,
    cwd: plan.cwd,
    // where Codex would ask at all: else it answers the gateway's prompts by itself
    askApprovals:
      plan.record.mode === 'run' && codexAsks(plan.rendered.files.get('config.toml'), plan.args),
  });
}

/** The session broker's options: participants are started, watched and asked like the root. */
function brokerOptions(
  plan: SessionPlan,
  context: LaunchContext,
  parts: Pick<
    SessionServices,
    'supervision' | 'watch' | 'gateway' | 'wire' | 'gate' | 'threadRole'
  >,
  budget: BudgetWatch,
): BrokerOptions {
  const { supervision, watch, gateway, wire, gate, threadRole } = parts;
  return {
    sessionId: plan.id,
    sessionDir: plan.dir,
    socketPath: plan.record.mesh_socket,
    snapshot: context.stored.snapshot,
    plan: context.plan,
    launchEnv: context.launchEnv,
    credentials: context.credentials,
    home: context.home,
    baseCodexHome: context.baseCodexHome,
    authFile: context.authFile,
    codexBin: plan.command,
    codexEnv: plan.commandEnv,
    ...(context.codex !== undefined ? { codex: context.codex } : {}),
    cli: context.cli,
    defaultCwd: plan.cwd,
    prepareHome: (rendered, id) => wire.home(rendered, id),
    // with the wire enforcing, each mmo_mesh call acts with its calling thread's role
    ...(wire.enforcing ? { roleOfThread: (threadId: string) => wire.roleOfThread(threadId) } : {}),
    approvalsFor: (participant, role, secrets) =>
      supervision.policyFor(participant, role, secrets, gate),
    onNotification: (participant, role, n) => {
      supervision.notification(participant, threadRole(participant, role, n), n);
    },
    // an interactive root's mmo_mesh puts participants' requests to the person at the TUI
    ...(plan.record.mode === 'run'
      ? { rootApprovals: { queue: supervision.queue, user: context.user ?? osUser() } }
      : {}),
    gateway,
    readDeny: context.readDeny,
    ...(context.hostView !== undefined ? { hostView: context.hostView } : {}),
    markProcesses: true,
    forbiddenDirs: [context.configDir, context.dataDir, context.stateDir, context.baseCodexHome],
    maxParticipants: budget.budget.participants,
    budget: budget.budget,
    memoryMb: () => budget.memoryMb(),
    onBudgetRefusal: (refusal, caller) => {
      budget.refusal(refusal, caller.participant, caller.role ?? caller.process);
    },
    onChange: (list) => {
      watch.participants(list);
      budget.participants(list);
    },
    ...(context.resume !== undefined
      ? { previous: { session: context.resume.from, participants: context.resume.participants } }
      : {}),
    limits: {
      onFlood: (flood) => {
        supervision.listenerFlood(flood);
      },
    },
  };
}

/** A tool the gateway withheld for drift: told to the operator and kept in the record. */
function recordDrift(report: DriftReport, context: LaunchContext, writer: RecordWriter): void {
  context.onDiagnostic?.(driftDiagnostic(report));
  void writer.update((r) => ({
    ...r,
    tool_drift: [
      ...(r.tool_drift ?? []),
      { process: report.process, server: report.server, tool: report.tool },
    ],
  }));
}

/** The team budget: use recorded as it changes, starts beyond a ceiling refused and recorded. */
function startBudget(
  context: LaunchContext,
  writer: RecordWriter,
  supervision: SessionSupervision,
): BudgetWatch {
  const participants = context.maxParticipants ?? DEFAULT_MAX_PARTICIPANTS;
  // the pack narrows the operator's ceilings, never raises one
  const { budget: ceilings, above } = withinOperator(
    { participants, ...context.budget },
    context.stored.snapshot.profile.budget,
  );
  for (const over of above) {
    context.onDiagnostic?.(
      diagnostic({
        severity: 'warning',
        code: 'pack-budget-above-limit',
        message: `the pack's [budget] ${over.ceiling} = ${String(over.pack)} is above the operator's limit (${over.option} ${String(over.operator)}), which applies; raise it with ${over.option} to give the pack more`,
      }),
    );
  }
  const budget = new BudgetWatch(ceilings, writer, (event) => {
    supervision.event(event);
  });
  budget.start();
  return budget;
}

/** Starts the session's services; on failure closes those already started and rethrows. */
export async function startSessionServices(
  plan: SessionPlan,
  context: LaunchContext,
): Promise<SessionServices> {
  const paths = await createSessionDir(plan.dir);
  const approvalsSocket = approvalSocketPath(plan.dir, plan.id, tmpdir());
  const writer = new RecordWriter(plan.dir, { ...plan.record, approvals_socket: approvalsSocket });
  // the approval queue and the event log: people answer and watch from other terminals
  const supervision = await SessionSupervision.start({
    session: plan.id,
    dir: plan.dir,
    socketPath: approvalsSocket,
    timeoutSec: context.approvalTimeoutSec ?? DEFAULT_APPROVAL_TIMEOUT_SEC,
    secrets: plan.secrets,
  });
  if (context.onEvent !== undefined) supervision.events.listen(context.onEvent);
  // a listener flooded with connections that do not authenticate is recorded, and named if the
  // session fails
  const onFlood = (flood: ListenerFlood): void => {
    supervision.listenerFlood(flood);
  };
  const watch = watchSession(plan.dir, supervision, writer);
  const budget = startBudget(context, writer, supervision);
  // every Tool MCP server of the session is reached through the gateway, which checks each call
  // against the role the model wire attributed its thread to
  const threadRoles: { wire?: ModelWire } = {};
  // the broker, once started: this process's mmo_mesh reaches it without its socket
  const local: { broker?: SessionBroker } = {};
  const serverFailures: ServerFailure[] = [];
  // each server's stderr, in order, a batch at a time
  const serverLogs = new AppendQueues();
  const gateway = await SessionGateway.start({
    roleOfThread: (threadId) => threadRoles.wire?.roleOfThread(threadId),
    // each process's mmo_mesh is a route of the gateway too, served here
    serveMesh: (mesh, transport) =>
      serveMeshOn(
        {
          sessionDir: plan.dir,
          socketPath: plan.record.mesh_socket,
          caller: { process: mesh.role, participant: mesh.process },
          token: mesh.token,
          local: () => local.broker?.connectLocal(),
        },
        transport,
      ),
    sessionDir: plan.dir,
    socketPath: gatewaySocketPath(plan.record.mesh_socket),
    snapshot: context.stored.snapshot,
    plan: context.plan,
    credentials: context.credentials,
    home: context.home,
    cli: context.cli,
    secrets: plan.secrets,
    onDrift: (report) => {
      recordDrift(report, context, writer);
    },
    onGroups: (pids) => {
      watch.groups(pids);
      budget.serverGroups(pids);
    },
    onStderr: (process, server, text) => {
      serverLogs.append(join(paths.logs, `gateway-${process}-${server}.stderr.log`), text);
    },
    // a server's own failure, in its own words, not only Codex's wording of it
    onServerFailure: (failure) => {
      serverFailures.push(failure);
      context.onDiagnostic?.(
        serverFailureDiagnostic(failure, failureRequired(context.plan, failure)),
      );
      supervision.event(serverFailureEvent(failure));
    },
    // every refused call shows in `session logs` too, with the calling role and the reason
    onRecord: (entry) => {
      if (entry.outcome !== 'denied' && entry.outcome !== 'blocked') return;
      supervision.event(refusedEvent(entry));
    },
    limits: { onFlood },
    budget: budget.forGateway(),
    // an interactive root's calls are asked about by the gateway, as the calling role
    ...(plan.record.mode === 'run' ? { asker: queueAsker(supervision) } : {}),
  });
  const relayed = rootThroughGateway(plan, context, gateway);
  // every Codex process of the session reaches its model through the session's model wire
  const wire = await startSessionWire(
    context.stored.snapshot,
    context.plan,
    paths.logs,
    (call) => {
      gateway.hub.recordCall(unofferedRecord(call));
    },
    onFlood,
    context.codex,
  );
  threadRoles.wire = wire;
  // events of a native role's thread are that role's
  const threadRole = (process: string, root: string, n: ServerNotification): string => {
    const thread = n.params.threadId;
    const seen = typeof thread === 'string' ? wire.roleOfThread(thread) : undefined;
    return seen?.process === process && seen.role !== null ? seen.role : root;
  };
  // an approval is the calling thread's role's, and refused unasked outside that role's grant
  const gate = approvalGate(
    context.plan,
    (thread) => (wire.enforcing ? wire.roleOfThread(thread) : undefined),
    (entry) => {
      gateway.hub.recordCall(entry);
    },
    (process, thread, denial) => {
      wire.explainDenial(process, thread, denial);
    },
  );
  // the root's wire token lives only in its environment, like its gateway tokens
  const wired = wire.home(relayed.rendered, 'root');
  const rootLaunch: ProcessLaunch = {
    rendered: relayed.rendered,
    env: { ...relayed.env, ...wired.env },
    tokens: [...relayed.tokens, ...Object.values(wired.env)],
  };
  const authFrom = context.authFile ? context.baseCodexHome : undefined;
  // the home, the first record and the broker are independent: prepare them concurrently
  const [home, first, started] = await Promise.allSettled([
    writeProcessHome(wired.home, plan.homeDir, authFrom).then(async () => {
      // a resumed root finds its thread's history in its own home
      if (context.resume !== undefined) await copyRollouts(context.resume.rootHome, plan.homeDir);
    }),
    writer.update((r) => r),
    SessionBroker.start(
      brokerOptions(plan, context, { supervision, watch, gateway, wire, gate, threadRole }, budget),
    ),
  ]);
  if (started.status === 'rejected') {
    budget.stop();
    await wire.close();
    await supervision.close();
    await gateway.close();
    throw started.reason;
  }
  const broker = started.value;
  local.broker = broker;
  for (const step of [home, first]) {
    if (step.status === 'rejected') {
      budget.stop();
      await broker.close();
      await wire.close();
      await supervision.close();
      await gateway.close();
      await clearEndedHomes(paths.homes);
      throw step.reason;
    }
  }
  const services = {
    paths,
    writer,
    supervision,
    watch,
    gateway,
    wire,
    broker,
    relayed: rootLaunch,
    budget,
  };
  return { ...services, gate, threadRole, serverFailures, serverLogs };
}
