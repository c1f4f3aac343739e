/**
 * Drives one smoke process as its own `codex app-server` against the scripted model: renders its
 * home with relays to the session gateway, starts a thread, records every server that failed to
 * start, and runs the scripted turn (for the session root, including its participants' spawns).
 */
import { realpath } from 'node:fs/promises';

import { renderProcess } from '../../config/compile/render-process.js';
import { writeRenderedHome } from '../../config/compile/write-home.js';
import {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  type ResolvedPlan,
  type ResolvedProcess,
} from '../../config/profile/types.js';
import { diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import {
  AppServerClient,
  AppServerRequestError,
  failedRequiredServers,
} from '../../runtime/codex/app-server-client.js';
import { meshLaunchFor } from '../../runtime/mesh/mesh-command.js';
import { MESH_TOKEN_ENV } from '../../runtime/mesh/mesh-credential.js';
import { MESH_SERVER_NAME } from '../../runtime/protocol/mesh-protocol.js';
import { processEnvironment } from '../../runtime/session/process-env.js';
import { processHomeDir } from '../session/prepare-session.js';
import { smokeHome } from './smoke-home.js';
import { hasMesh } from './smoke-report.js';
import { mask, serverError, type Run } from './smoke-run.js';
import { processTask } from './smoke-script.js';

const STARTUP_MARGIN_SEC = 10;
const DEFAULT_TURN_TIMEOUT_MS = 120_000;

/** Startup wait for a process: its longest server startup timeout plus a margin, in ms. */
function startupWaitMs(plan: ResolvedPlan, process: ResolvedProcess): number {
  const longest = Math.max(
    0,
    ...process.servers.map(
      (s) => plan.servers[s]?.startup_timeout_sec ?? CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
    ),
  );
  return (longest + STARTUP_MARGIN_SEC) * 1000;
}

/**
 * Drives one process as its own `codex app-server`: the session root (with `mmo_mesh`, so its
 * model spawns its participants; `meshToken` is its mesh credential), or a participant role no
 * process root may spawn (without).
 */
export async function driveProcess(
  run: Run,
  process: ResolvedProcess,
  meshToken: string | undefined,
  afterTurn: () => Promise<unknown> = () => Promise.resolve(),
): Promise<void> {
  const { plan } = run;
  const withMesh = meshToken !== undefined;
  const home = processHomeDir(run.sessionDir, process.root);
  const rendered = renderProcess(run.snapshot, plan, process.root, {
    home: run.request.home,
    ...(withMesh ? { mesh: meshLaunchFor(run.cli, run.sessionDir, process.root) } : {}),
    codex: run.codex,
    boundary: { deny: run.readDeny, cwd: await realpath(run.workdir).catch(() => run.workdir) },
  });
  const own = withMesh ? rendered : smokeHome(rendered, run.modelUrl);
  const processId = withMesh ? 'root' : process.root;
  const penv = processEnvironment(
    plan,
    process,
    run.snapshot.base,
    run.request.env,
    run.credentials,
    home,
  );
  const relayed = run.gateway?.prepareProcess({
    processId,
    process,
    rendered: own,
    env: penv.env,
    cwd: run.workdir,
  });
  const wired = run.wire.home(relayed?.rendered ?? own, processId);
  await writeRenderedHome(wired.home, home);
  const processEnv = { ...(relayed?.env ?? penv.env), ...wired.env, ...run.codexEnv };
  if (withMesh)
    run.gateway?.addMeshRoute({ process: processId, role: process.root, token: meshToken });
  run.secrets.push(
    ...penv.secrets,
    ...(relayed?.tokens ?? []),
    ...Object.values(wired.env),
    ...(withMesh ? [meshToken] : []),
  );
  const rootGrants = plan.roles[process.root]?.grants ?? {};
  const started = [
    ...Object.keys(rootGrants),
    ...(withMesh && hasMesh(plan, process.root) ? [MESH_SERVER_NAME] : []),
  ];
  let client: AppServerClient | undefined;
  try {
    client = await AppServerClient.start({
      codexBin: run.codexBin,
      codexHome: home,
      env: withMesh ? { ...processEnv, [MESH_TOKEN_ENV]: meshToken } : processEnv,
      cwd: run.workdir,
      clientInfo: { name: 'codex-mmo-smoke', title: 'codex-mmo profile smoke', version: '1' },
      requestTimeoutMs: startupWaitMs(plan, process) + 30_000,
      onSpawn: (pid) => {
        run.gateway?.bindSpawned(processId, pid);
      },
    });
    let threadId: string;
    try {
      const thread = await client.startThread({
        cwd: run.workdir,
        ephemeral: true,
        approvalPolicy: 'never',
      });
      threadId = thread.thread.id;
    } catch (error) {
      if (!(error instanceof AppServerRequestError)) throw error;
      const names = failedRequiredServers(error.rpcMessage, process.servers);
      for (const server of names) {
        run.failures.push({
          process: process.root,
          server,
          required: true,
          error: mask(run, serverError(error.rpcMessage, server)),
        });
      }
      if (names.length === 0) {
        run.diagnostics.push(
          diagnostic({
            code: 'smoke-codex-failed',
            message: `Codex could not start a session for process '${process.root}': ${mask(run, error.rpcMessage)}`,
          }),
        );
      }
      return;
    }
    const statuses = await client.waitForMcpStartup(
      threadId,
      started,
      startupWaitMs(plan, process),
    );
    for (const server of started) {
      const status = statuses[server];
      if (status?.status === 'ready') continue;
      run.failures.push({
        process: process.root,
        server,
        required: rootGrants[server]?.required === true,
        error: mask(
          run,
          status === undefined
            ? 'no startup status was reported'
            : status.status === 'starting'
              ? 'still starting when the startup wait ended'
              : (status.error ?? status.status),
        ),
      });
    }
    // the session root's turn includes spawning its participants, each bounded like a process
    const turns = withMesh ? plan.processes.length : 1;
    const turn = await client.runTurn(threadId, processTask(process.root), {
      timeoutMs: (run.request.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS) * turns,
    });
    if (turn.turn.status !== 'completed') {
      run.diagnostics.push(
        diagnostic({
          code: 'smoke-turn-failed',
          message: `the scripted turn of process '${process.root}' ended ${turn.turn.status}${turn.turn.error !== null ? `: ${mask(run, turn.turn.error.message)}` : ''}`,
        }),
      );
    }
    // participants end with their spawner's mmo_mesh: keep this process until they are done
    await afterTurn();
  } catch (error) {
    const tail = client?.stderrTail.trim().split('\n').slice(-5).join('\n') ?? '';
    run.diagnostics.push(
      diagnostic({
        code: 'smoke-codex-failed',
        message: mask(
          run,
          `Codex failed while checking process '${process.root}': ${describeError(error)}${tail !== '' ? `\n${tail}` : ''}`,
        ),
      }),
    );
  } finally {
    await client?.close();
    await run.gateway?.closeProcess(processId);
  }
}
