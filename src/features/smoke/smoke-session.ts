/**
 * The session stage of `profile smoke`: starts the scripted model, the model wire, the session
 * gateway and the session broker in a temporary session directory, drives the session root (whose
 * model spawns its participants through `mmo_mesh`) and every process no root may spawn, and
 * closes and removes all of it afterwards. What it finds is collected in the returned run.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import type { ResolvedProcess } from '../../config/profile/types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import { diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import { failedRequiredServers } from '../../runtime/codex/app-server-client.js';
import { startScriptedModel } from '../../runtime/codex/scripted-model.js';
import {
  SessionGateway,
  driftDiagnostic,
  gatewaySocketPath,
} from '../../runtime/gateway/session-gateway.js';
import { SessionBroker } from '../../runtime/mesh/session-broker.js';
import { serveMeshOn } from '../../runtime/mesh/serve-mesh.js';
import { startSessionWire } from '../../runtime/model-wire/session-wire.js';
import type { ParticipantInfo } from '../../runtime/protocol/mesh-protocol.js';
import { denyWhole } from '../../runtime/session/read-deny.js';
import { SESSION_FORMAT } from '../../runtime/session/session-record.js';
import { createSessionDir, writeSessionRecord } from '../../runtime/session/session-store.js';
import { chooseSocketPath } from '../session/launch.js';
import { withScriptedProvider } from './smoke-home.js';
import type { SmokePrepared } from './smoke-prepare.js';
import { driveProcess } from './smoke-process.js';
import { mask, serverError, type Run, type SmokeRequest } from './smoke-run.js';
import { CHILD_WAIT_MS, waitUntil, type SmokeScript } from './smoke-script.js';

/** Failures of participants' servers, from the broker: required ones from failed spawns. */
function participantFailures(run: Run, participants: readonly ParticipantInfo[]): void {
  for (const info of participants) {
    for (const failed of info.failed_servers ?? []) {
      run.failures.push({
        process: info.role,
        server: failed.server,
        required: false,
        error: failed.error,
      });
    }
  }
  for (const failure of run.script.failures) {
    if (failure.via !== 'mmo_mesh') continue;
    const process = run.plan.processes.find((p) => p.root === failure.role);
    for (const server of failedRequiredServers(failure.output, process?.servers ?? [])) {
      run.failures.push({
        process: failure.role,
        server,
        required: true,
        error: mask(run, serverError(failure.output, server)),
      });
    }
  }
}

/** The smoke session's broker: participants start as in a session, with the scripted model. */
function startSmokeBroker(
  run: Run,
  gateway: SessionGateway,
  socketPath: string,
  work: string,
): Promise<SessionBroker> {
  const { request, wire } = run;
  return SessionBroker.start({
    sessionId: 'smoke',
    sessionDir: run.sessionDir,
    socketPath,
    snapshot: run.snapshot,
    plan: run.plan,
    launchEnv: request.env,
    credentials: run.credentials,
    home: request.home,
    // no auth.json: the scripted model needs no key
    baseCodexHome: join(work, 'no-codex-home'),
    codexBin: run.codexBin,
    codexEnv: run.codexEnv,
    codex: run.codex,
    cli: run.cli,
    defaultCwd: run.workdir,
    prepareHome: (rendered, id) => wire.home(rendered, id),
    gateway,
    ...(wire.enforcing ? { roleOfThread: (threadId: string) => wire.roleOfThread(threadId) } : {}),
    readDeny: run.readDeny,
    forbiddenDirs: [
      request.dirs.configDir,
      request.dirs.dataDir,
      request.dirs.stateDir,
      request.dirs.baseCodexHome,
    ],
  });
}

/** Runs the smoke session; never throws (what fails becomes a diagnostic of the run). */
export async function runSmokeSession(
  request: SmokeRequest,
  prepared: SmokePrepared,
  script: SmokeScript,
  spawnedBy: ReadonlyMap<string, string>,
  direct: readonly ResolvedProcess[],
): Promise<Run> {
  const { plan, stored, detection, codex, cli, credentials } = prepared;
  const codexBin = detection.launch.command;
  const work = await mkdtemp(join(tmpdir(), 'codex-mmo-smoke-'));
  const model = await startScriptedModel(script.handle);
  // the leases stay for the pinned `initialize` answers; every server starts all the same
  const snapshot: Snapshot = {
    ...stored.snapshot,
    base: withScriptedProvider(stored.snapshot.base, model.baseUrl),
  };
  const sessionDir = join(work, 'session');
  const wire = await startSessionWire(snapshot, plan, undefined, undefined, undefined, codex.facts);
  const run: Run = {
    snapshot,
    plan,
    request,
    codexBin,
    codexEnv: detection.launch.env,
    codex: codex.facts,
    credentials,
    sessionDir,
    workdir: join(work, 'work'),
    cli,
    modelUrl: model.baseUrl,
    wire,
    script,
    // the smoke session lives outside the state dir, so the state dir can be denied whole
    readDeny: await denyWhole([
      request.dirs.configDir,
      request.dirs.dataDir,
      request.dirs.baseCodexHome,
      request.dirs.stateDir,
    ]),
    secrets: [...credentials.secretValues()],
    failures: [],
    serverFailures: [],
    diagnostics: [],
  };
  let broker: SessionBroker | undefined;
  try {
    await mkdir(run.workdir);
    await createSessionDir(sessionDir);
    const socketPath = chooseSocketPath(sessionDir, basename(work), tmpdir());
    const started = new Date().toISOString();
    await writeSessionRecord(sessionDir, {
      format: SESSION_FORMAT,
      id: 'smoke',
      profile: plan.profile,
      snapshot: stored.id,
      mode: 'exec',
      cwd: run.workdir,
      started,
      status: 'running',
      pid: process.pid,
      mesh_socket: socketPath,
      processes: [],
    });
    run.gateway = await SessionGateway.start({
      startEveryServer: true,
      roleOfThread: (threadId) => wire.roleOfThread(threadId),
      // each process's mmo_mesh is a route of the gateway, as in a session
      serveMesh: (mesh, transport) =>
        serveMeshOn(
          {
            sessionDir,
            socketPath,
            caller: { process: mesh.role, participant: mesh.process },
            token: mesh.token,
            local: () => broker?.connectLocal(),
          },
          transport,
        ),
      sessionDir,
      socketPath: gatewaySocketPath(socketPath),
      snapshot,
      plan,
      credentials: credentials,
      home: request.home,
      cli,
      secrets: run.secrets,
      onDrift: (report) => {
        run.diagnostics.push(driftDiagnostic(report));
      },
      onServerFailure: (failure) => {
        run.serverFailures.push(failure);
      },
    });
    broker = await startSmokeBroker(run, run.gateway, socketPath, work);
    const root = plan.processes.find((p) => p.root === plan.root);
    const live = broker;
    if (root !== undefined) {
      // participants may still be spawning their own natives and participants
      await driveProcess(run, root, live.rootToken, async () => {
        await waitUntil(
          () =>
            [...spawnedBy.keys()].every(
              (role) =>
                script.done.has(role) ||
                script.failures.some((f) => f.via === 'mmo_mesh' && f.role === role),
            ),
          CHILD_WAIT_MS,
        );
        participantFailures(run, live.list());
      });
    }
    for (const process of direct) await driveProcess(run, process, undefined);
    for (const error of model.errors) {
      run.diagnostics.push(
        diagnostic({
          code: 'smoke-codex-failed',
          message: `scripted model error: ${mask(run, error)}`,
        }),
      );
    }
  } catch (error) {
    run.diagnostics.push(
      diagnostic({
        code: 'smoke-codex-failed',
        message: mask(run, `profile smoke could not run: ${describeError(error)}`),
      }),
    );
  } finally {
    await broker?.close();
    await run.gateway?.close();
    await wire.close();
    await model.close();
    await rm(work, { recursive: true, force: true });
  }
  return run;
}
