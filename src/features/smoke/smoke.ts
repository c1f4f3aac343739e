/**
 * `profile smoke`: the live, offline acceptance of a profile, run as a real session would run.
 * The session root process is a real `codex app-server` with the rendered configuration, the
 * session's environment and its `mmo_mesh`, talking to the built-in scripted model; the model has
 * every process root spawn its native roles (`spawn_agent`) and its participant roles (through
 * `mmo_mesh` and the session broker, which checks the spawn grant and starts each participant
 * with its own home and environment). The tools each role's model is offered are compared with
 * the role's grants. A participant role that no process root may spawn is started on its own.
 * Every process reaches its Tool MCP servers through the session gateway, as in a session: its
 * configuration holds relays, its environment no server credential.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

import { parse, stringify } from 'smol-toml';

import {
  AppServerClient,
  AppServerRequestError,
  failedRequiredServers,
} from '../../runtime/codex/app-server-client.js';
import { codexInUse, codexVersionDiagnostics } from '../../runtime/codex/codex-in-use.js';
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { scriptedProviderConfig, startScriptedModel } from '../../runtime/codex/scripted-model.js';
import { compileProfile } from '../../config/compile/compile-profile.js';
import { renderProcess } from '../../config/compile/render-process.js';
import type { ReadDeny } from '../../config/compile/session-boundary.js';
import type { MeshLaunch, RenderedHome } from '../../config/compile/types.js';
import { writeRenderedHome } from '../../config/compile/write-home.js';
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { describeError } from '../../foundation/errors.js';
import {
  SessionGateway,
  driftDiagnostic,
  gatewaySocketPath,
} from '../../runtime/gateway/session-gateway.js';
import { describeServerFailure, type ServerFailure } from '../../runtime/gateway/server-failure.js';
import {
  checkMeshCommand,
  defaultCliLaunch,
  meshLaunchFor,
} from '../../runtime/mesh/mesh-command.js';
import { MESH_TOKEN_ENV } from '../../runtime/mesh/mesh-credential.js';
import { MESH_SERVER_NAME, type ParticipantInfo } from '../../runtime/protocol/mesh-protocol.js';
import { SessionBroker } from '../../runtime/mesh/session-broker.js';
import {
  configFiles,
  type Directories,
  type Environment,
} from '../../foundation/paths/directories.js';
import {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  type ResolvedPlan,
  type ResolvedProcess,
} from '../../config/profile/types.js';
import { loadCredentials } from '../../config/registry/credentials.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import type { Snapshot } from '../../config/snapshot/types.js';
import type { TomlTable } from '../../foundation/toml/parse-toml.js';
import { chooseSocketPath } from '../session/launch.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import { processHomeDir } from '../session/prepare-session.js';
import { processEnvironment } from '../../runtime/session/process-env.js';
import { denyWhole } from '../../runtime/session/read-deny.js';
import { SESSION_FORMAT } from '../../runtime/session/session-record.js';
import { createSessionDir, writeSessionRecord } from '../../runtime/session/session-store.js';
import {
  describeScope,
  hasMesh,
  howStarted,
  measurement,
  reasonOf,
  roleDiagnostics,
  type SmokeMeasurement,
  type SmokeMissingEnv,
  type SmokeReport,
  type SmokeRole,
  type SmokeServerFailure,
} from './smoke-report.js';
import { CHILD_WAIT_MS, SmokeScript, processTask, waitUntil } from './smoke-script.js';
import type { ModelWire } from '../../runtime/model-wire/model-wire.js';
import { startSessionWire } from '../../runtime/model-wire/session-wire.js';
import { providerRoute } from '../../config/compile/provider-route.js';
export { SMOKE_SPAWN_MARKER } from './smoke-script.js';
export type {
  SmokeMeasurement,
  SmokeMesh,
  SmokeMissingEnv,
  SmokeReport,
  SmokeRole,
  SmokeRoleKind,
  SmokeServerFailure,
  SmokeVia,
} from './smoke-report.js';
export {
  grantedTools,
  modelToolName,
  toOperatorNames,
  toolDifference,
  type ToolsByServer,
} from './smoke-tools.js';

const STARTUP_MARGIN_SEC = 10;
const DEFAULT_TURN_TIMEOUT_MS = 120_000;

export interface SmokeRequest {
  /** An installed pack name or a pack directory. */
  readonly nameOrPath: string;
  readonly dirs: Directories;
  readonly cwd: string;
  /** The launch environment (source of base and referenced variables). */
  readonly env: Environment;
  readonly home: string;
  /** Bound on the scripted turn of one process, in milliseconds (default 120 000). */
  readonly turnTimeoutMs?: number;
  /** Command prefix that runs the codex-mmo CLI for `mmo_mesh` (default: this installation). */
  readonly cli?: MeshLaunch;
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `table` with the scripted model as its model provider (other providers are kept), and Codex's
 * built-in ChatGPT apps connector off: it is no Tool MCP server, and it would reach the network.
 */
function withScriptedProvider(table: TomlTable, baseUrl: string): TomlTable {
  const provider = scriptedProviderConfig(baseUrl);
  const providers = isTable(table.model_providers) ? table.model_providers : {};
  const features = isTable(table.features) ? table.features : {};
  return {
    ...table,
    ...provider,
    model_providers: { ...providers, ...(provider.model_providers as TomlTable) },
    features: { ...features, apps: false },
  };
}

/**
 * Adapts a rendered home for a process started on its own: the scripted model becomes the model
 * provider, and `mmo_mesh` is left out (no session broker knows the process).
 */
export function smokeHome(rendered: RenderedHome, baseUrl: string): RenderedHome {
  const files = new Map<string, string>();
  for (const [path, text] of rendered.files) {
    let table = parse(text) as TomlTable;
    if (isTable(table.mcp_servers)) {
      table.mcp_servers = Object.fromEntries(
        Object.entries(table.mcp_servers).filter(([id]) => id !== MESH_SERVER_NAME),
      );
    }
    if (path === 'config.toml') table = withScriptedProvider(table, baseUrl);
    files.set(path, stringify(table));
  }
  return { process: rendered.process, files };
}

/**
 * Which process root spawns which participant roles through `mmo_mesh`: breadth first from the
 * session root, each participant role by the first process root whose `spawn` grant lists it.
 * Processes that are not reached this way (only a native role may spawn them) are started on
 * their own.
 */
export function meshAssignments(
  snapshot: Snapshot,
  plan: ResolvedPlan,
): { spawns: Map<string, string[]>; spawnedBy: Map<string, string> } {
  const spawns = new Map<string, string[]>();
  const spawnedBy = new Map<string, string>();
  const queue = [plan.root];
  const reached = new Set(queue);
  for (let i = 0; i < queue.length; i++) {
    const root = queue[i] ?? '';
    const own: string[] = [];
    for (const target of snapshot.profile.agents[root]?.spawn ?? []) {
      if (reached.has(target) || !plan.processes.some((p) => p.root === target)) continue;
      reached.add(target);
      queue.push(target);
      own.push(target);
      spawnedBy.set(target, root);
    }
    spawns.set(root, own);
  }
  return { spawns, spawnedBy };
}

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

/** The part of Codex's "required MCP servers failed" text about one server. */
function serverError(text: string, server: string): string {
  const marker = 'required MCP servers failed to initialize:';
  const rest = text.slice(text.indexOf(marker) + marker.length);
  const entry = rest
    .split(';')
    .map((p) => p.trim())
    .find((p) => p.startsWith(`${server}: `));
  return entry?.slice(server.length + 2) ?? text;
}

/** Everything one smoke run collects, shared by the processes it drives. */
interface Run {
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly request: SmokeRequest;
  readonly codexBin: string;
  /** What each Codex process's environment gains to run `codexBin` (the npm launcher's variables). */
  readonly codexEnv: Readonly<Record<string, string>>;
  /** `codexBin`'s row of the version table: homes are rendered for it. */
  readonly codex: CodexVersionFacts;
  readonly credentials: CredentialSource;
  readonly sessionDir: string;
  readonly workdir: string;
  readonly cli: MeshLaunch;
  readonly modelUrl: string;
  /** The model wire between every Codex process and the scripted model. */
  readonly wire: ModelWire;
  /** The session gateway every process reaches its Tool MCP servers through (once started). */
  gateway?: SessionGateway;
  readonly script: SmokeScript;
  /** What the smoke processes' shells may not read: the operator's directories, whole. */
  readonly readDeny: ReadDeny;
  readonly secrets: string[];
  readonly failures: SmokeServerFailure[];
  /** Servers the gateway saw fail, in their own words (masked). */
  readonly serverFailures: ServerFailure[];
  readonly diagnostics: Diagnostic[];
}

function mask(run: Run, text: string): string {
  return maskSecrets(text, run.secrets);
}

/**
 * Drives one process as its own `codex app-server`: the session root (with `mmo_mesh`, so its
 * model spawns its participants; `meshToken` is its mesh credential), or a participant role no
 * process root may spawn (without).
 */
async function driveProcess(
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
  await writeRenderedHome(run.wire.home(relayed?.rendered ?? own, processId), home);
  const processEnv = { ...(relayed?.env ?? penv.env), ...run.codexEnv };
  run.secrets.push(...penv.secrets, ...(relayed?.tokens ?? []), ...(withMesh ? [meshToken] : []));
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

/**
 * A role's missing tools are a warning when every server they belong to is granted as not
 * required and failed to start in that process: Codex runs without it, as the grant allows.
 */
function optionalFailure(
  d: Diagnostic,
  missing: Readonly<Record<string, readonly string[]>>,
  failures: readonly SmokeServerFailure[],
  process: string,
): Diagnostic {
  if (d.code !== 'smoke-tool-missing') return d;
  const servers = Object.keys(missing).filter((s) => (missing[s] ?? []).length > 0);
  const optional = servers.every((s) =>
    failures.some((f) => f.process === process && f.server === s && !f.required),
  );
  if (servers.length === 0 || !optional) return d;
  return {
    ...d,
    severity: 'warning',
    message: `${d.message} (${servers.join(', ')} failed to start and ${servers.length === 1 ? 'is' : 'are'} granted with required = false, so the session runs without ${servers.length === 1 ? 'it' : 'them'}; see smoke-server-failed)`,
  };
}

/** Each failed server's error in its own words, as the gateway saw it, rather than Codex's wording. */
function ownWords(run: Run): void {
  run.failures.forEach((failure, i) => {
    const own = run.serverFailures.find(
      (f) => f.role === failure.process && f.server === failure.server,
    );
    if (own !== undefined) run.failures[i] = { ...failure, error: describeServerFailure(own) };
  });
}

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

/** Compiles the profile and smoke-tests it as a session. Never throws for bad input. */
// eslint-disable-next-line max-lines-per-function -- one smoke run: compile, launch, check and end share the session each failure path must end
export async function smokeProfile(request: SmokeRequest): Promise<SmokeReport> {
  const diagnostics: Diagnostic[] = [];
  const empty = (profile: string | undefined, snapshot?: string): SmokeReport => ({
    ok: false,
    profile,
    ...(snapshot !== undefined ? { snapshot } : {}),
    roles: {},
    servers_failed: [],
    missing_env: [],
    scope: [],
    diagnostics,
  });
  const compiled = await compileProfile({
    nameOrPath: request.nameOrPath,
    dirs: request.dirs,
    cwd: request.cwd,
    env: request.env,
    home: request.home,
  });
  diagnostics.push(...compiled.diagnostics);
  const plan = compiled.plan;
  const stored = compiled.stored;
  if (plan === undefined || stored === undefined || hasErrors(diagnostics)) {
    return empty(plan?.profile);
  }
  const codex = await codexInUse(request.dirs.codexBin, request.env, request.cwd);
  if (codex.detection.kind === 'failed') {
    diagnostics.push(
      diagnostic({
        code: 'codex-not-runnable',
        message: `Codex binary ${codex.detection.path} does not work: ${codex.detection.reason}; reinstall it or pass --codex-bin PATH`,
      }),
    );
    return empty(plan.profile, stored.id);
  }
  if (codex.detection.kind === 'not-found') {
    diagnostics.push(
      diagnostic({
        code: 'codex-not-found',
        message: `Codex binary '${request.dirs.codexBin}' was not found; install @openai/codex or pass --codex-bin PATH`,
      }),
    );
    return empty(plan.profile, stored.id);
  }
  const codexBin = codex.detection.launch.command;
  diagnostics.push(...codexVersionDiagnostics(codex));
  const cli = request.cli ?? defaultCliLaunch();
  if (plan.processes.some((p) => p.mesh)) {
    const missing = await checkMeshCommand(cli);
    if (missing !== undefined) {
      diagnostics.push(missing);
      return empty(plan.profile, stored.id);
    }
  }
  const credentials = await loadCredentials(
    configFiles(request.dirs.configDir).credentials,
    request.env,
  );
  diagnostics.push(...credentials.diagnostics);

  // what each process would be refused or warned about for want of a variable
  const missingEnv: SmokeMissingEnv[] = [];
  for (const process of plan.processes) {
    const { diagnostics: found } = processEnvironment(
      plan,
      process,
      stored.snapshot.base,
      request.env,
      credentials.source,
      '/',
    );
    for (const d of found) {
      diagnostics.push(d);
      const variable = /variable (\S+) is not set/.exec(d.message)?.[1];
      if (variable !== undefined && d.server !== undefined) {
        missingEnv.push({ process: process.root, variable, server: d.server });
      }
    }
  }

  const { spawns, spawnedBy } = meshAssignments(stored.snapshot, plan);
  const direct = plan.processes.filter((p) => p.root !== plan.root && !spawnedBy.has(p.root));
  const script = new SmokeScript(
    plan.processes,
    spawns,
    (role) => stored.snapshot.profile.agents[role]?.native_agents ?? [],
  );
  const work = await mkdtemp(join(tmpdir(), 'codex-mmo-smoke-'));
  const model = await startScriptedModel(script.handle);
  const snapshot: Snapshot = {
    ...stored.snapshot,
    base: withScriptedProvider(stored.snapshot.base, model.baseUrl),
  };
  const sessionDir = join(work, 'session');
  const wire = await startSessionWire(snapshot, plan, undefined);
  const run: Run = {
    snapshot,
    plan,
    request,
    codexBin,
    codexEnv: codex.detection.launch.env,
    codex: codex.facts,
    credentials: credentials.source,
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
    secrets: [...credentials.source.secretValues()],
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
      roleOfThread: (threadId) => wire.roleOfThread(threadId),
      sessionDir,
      socketPath: gatewaySocketPath(socketPath),
      snapshot,
      plan,
      credentials: credentials.source,
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
    broker = await SessionBroker.start({
      sessionId: 'smoke',
      sessionDir,
      socketPath,
      snapshot,
      plan,
      launchEnv: request.env,
      credentials: credentials.source,
      home: request.home,
      // no auth.json: the scripted model needs no key
      baseCodexHome: join(work, 'no-codex-home'),
      codexBin,
      codexEnv: codex.detection.launch.env,
      codex: codex.facts,
      cli,
      defaultCwd: run.workdir,
      prepareHome: (rendered, id) => wire.home(rendered, id),
      gateway: run.gateway,
      ...(wire.enforcing
        ? { roleOfThread: (threadId: string) => wire.roleOfThread(threadId) }
        : {}),
      readDeny: run.readDeny,
      forbiddenDirs: [
        request.dirs.configDir,
        request.dirs.dataDir,
        request.dirs.stateDir,
        request.dirs.baseCodexHome,
      ],
    });
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
  diagnostics.push(...run.diagnostics);
  // smoke puts the wire in front of the scripted model; a session fronts the operator's provider
  const sessionRoute = providerRoute(stored.snapshot.base);
  if (sessionRoute.kind === 'unfrontable') {
    diagnostics.push(
      diagnostic({
        severity: 'warning',
        code: 'model-wire-unfrontable',
        message: `smoke measured native roles through the model wire, but a session cannot put it in front of the configured provider: ${sessionRoute.reason}; in a session every native role is offered its process root's tools`,
      }),
    );
  }
  for (const failure of run.script.failures) {
    if (failure.via !== 'spawn_agent') continue;
    diagnostics.push(
      diagnostic({
        code: 'smoke-codex-failed',
        message: `Codex could not spawn native role '${failure.role}' in process '${failure.process}': ${mask(run, reasonOf(failure.output))}`,
      }),
    );
  }
  ownWords(run);
  for (const failure of run.failures) {
    diagnostics.push(
      diagnostic({
        severity: failure.required ? 'error' : 'warning',
        code: 'smoke-server-failed',
        message: `server '${failure.server}' ${failure.required ? '(required) ' : ''}failed to start in process '${failure.process}': ${failure.error}`,
        server: failure.server,
      }),
    );
  }

  // every (process, role); a role's own process, if it has one, is the one it is reported under
  const measured = new Map<string, SmokeMeasurement[]>();
  for (const process of plan.processes) {
    for (const role of process.roles) {
      const m = measurement(
        plan,
        { first: script.first, failures: script.failures, mask: (t) => mask(run, t) },
        process,
        role,
        howStarted(plan, spawnedBy, process, role, script.nativeParent(process.root, role)),
      );
      diagnostics.push(
        ...roleDiagnostics(role, m, wire.enforcing).map((d) =>
          optionalFailure(d, m.missing, run.failures, process.root),
        ),
      );
      measured.set(role, [...(measured.get(role) ?? []), m]);
    }
  }
  const roles: Record<string, SmokeRole> = {};
  for (const [role, all] of measured) {
    const primary = all.find((m) => m.process === role) ?? all[0];
    if (primary === undefined) continue;
    roles[role] = { ...primary, other_processes: all.filter((m) => m !== primary) };
  }
  return {
    ok: !hasErrors(diagnostics),
    profile: plan.profile,
    snapshot: stored.id,
    roles,
    servers_failed: run.failures,
    missing_env: missingEnv,
    scope: describeScope(
      plan,
      spawnedBy,
      direct.map((p) => p.root),
      codex.detection.version,
    ),
    diagnostics,
    model_wire:
      sessionRoute.kind === 'unfrontable'
        ? { session_enforcing: false, reason: sessionRoute.reason }
        : { session_enforcing: true },
    codex: {
      path: codex.detection.path,
      version: codex.detection.version,
      supported: codex.supported,
    },
  };
}
