/**
 * `profile smoke`: the live, offline acceptance of a profile. Every Codex process of the profile
 * is rendered into a temporary home, pointed at the built-in scripted model, started as a real
 * `codex app-server` with the process's built environment, and scripted to spawn each native
 * role; the tools each role's model requests really offer are compared with the role's grants.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { parse, stringify } from 'smol-toml';

import {
  AppServerClient,
  AppServerRequestError,
  failedRequiredServers,
} from '../codex/app-server-client.js';
import { locateCodex } from '../codex/find-codex.js';
import {
  scriptedProviderConfig,
  startScriptedModel,
  type ModelRequest,
  type ScriptedItem,
} from '../codex/scripted-model.js';
import { compileProfile } from '../compile/compile-profile.js';
import { renderProcess } from '../compile/render-process.js';
import type { RenderedHome } from '../compile/types.js';
import { writeRenderedHome } from '../compile/write-home.js';
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/diagnostic.js';
import { describeError } from '../errors.js';
import { configFiles, type Directories, type Environment } from '../paths/directories.js';
import {
  CODEX_DEFAULT_STARTUP_TIMEOUT_SEC,
  type ResolvedPlan,
  type ResolvedProcess,
} from '../profile/types.js';
import { loadCredentials } from '../registry/credentials.js';
import type { CredentialSource } from '../registry/credentials-types.js';
import { RESERVED_SERVER_ID } from '../registry/types.js';
import type { Snapshot } from '../snapshot/types.js';
import type { TomlTable } from '../toml/parse-toml.js';
import { maskSecrets } from './mask-secrets.js';
import { processEnvironment } from './process-env.js';

/** Text of the spawn message for a native role; the sub-agent's request carries it. */
export const SMOKE_SPAWN_MARKER = 'codex-mmo smoke: you are role';
/** How long to wait for a spawned native role's first request after the root's turn. */
const CHILD_WAIT_MS = 30_000;
const STARTUP_MARGIN_SEC = 10;
const DEFAULT_TURN_TIMEOUT_MS = 120_000;

export type SmokeRoleKind = 'root' | 'participant' | 'native';

/** Tool names by server. */
export type ToolsByServer = Record<string, string[]>;

export interface SmokeRole {
  /** Root role of the Codex process the role runs in. */
  readonly process: string;
  readonly kind: SmokeRoleKind;
  /** True for native roles: they run inside their process root's Codex process. */
  readonly shared_process: boolean;
  /** Whether a model request of this role was observed. */
  readonly measured: boolean;
  readonly granted: ToolsByServer;
  /** The MCP tools the role's model request offered, by server (`{}` when not measured). */
  readonly received: ToolsByServer;
  /** Received but not granted. */
  readonly extra: ToolsByServer;
  /** Granted but not received. */
  readonly missing: ToolsByServer;
}

export interface SmokeServerFailure {
  readonly process: string;
  readonly server: string;
  /** Whether the process root requires the server. */
  readonly required: boolean;
  /** Codex's error text, with credential values masked. */
  readonly error: string;
}

export interface SmokeMissingEnv {
  readonly process: string;
  readonly variable: string;
  readonly server: string;
}

export interface SmokeReport {
  readonly ok: boolean;
  readonly profile: string | undefined;
  /** Identity of the compiled snapshot that was exercised. */
  readonly snapshot?: string;
  readonly roles: Record<string, SmokeRole>;
  readonly servers_failed: SmokeServerFailure[];
  readonly missing_env: SmokeMissingEnv[];
  readonly diagnostics: Diagnostic[];
}

export interface SmokeRequest {
  /** An installed pack name or a pack directory. */
  readonly nameOrPath: string;
  readonly dirs: Directories;
  readonly cwd: string;
  /** The launch environment (source of base and referenced variables). */
  readonly env: Environment;
  readonly home: string;
  /** Bound on one process's scripted turn, in milliseconds (default 120 000). */
  readonly turnTimeoutMs?: number;
}

function isTable(value: unknown): value is TomlTable {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Adapts a rendered home for the smoke run: the scripted model becomes the model provider, and
 * `mmo_mesh` is left out (participants are exercised as their own processes instead).
 */
export function smokeHome(rendered: RenderedHome, baseUrl: string): RenderedHome {
  const files = new Map<string, string>();
  for (const [path, text] of rendered.files) {
    const table = parse(text) as TomlTable;
    if (isTable(table.mcp_servers)) {
      table.mcp_servers = Object.fromEntries(
        Object.entries(table.mcp_servers).filter(([id]) => id !== RESERVED_SERVER_ID),
      );
    }
    if (path === 'config.toml') {
      const provider = scriptedProviderConfig(baseUrl);
      const providers = isTable(table.model_providers) ? table.model_providers : {};
      Object.assign(table, provider, {
        model_providers: { ...providers, ...(provider.model_providers as TomlTable) },
      });
    }
    files.set(path, stringify(table));
  }
  return { process: rendered.process, files };
}

/** Tools granted to a role of the plan, by server (sorted). */
export function grantedTools(plan: ResolvedPlan, role: string): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, grant] of Object.entries(plan.roles[role]?.grants ?? {})) {
    out[server] = [...grant.enabled_tools].sort();
  }
  return out;
}

/**
 * Codex offers MCP tools to the model under model-safe names (`get-sum` becomes `get_sum`): map
 * each received name back to the operator's name it stands for, so grants compare like for like.
 */
export function modelToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

export function toOperatorNames(received: ToolsByServer, plan: ResolvedPlan): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, names] of Object.entries(received)) {
    const byModelName = new Map<string, string>();
    for (const tool of plan.servers[server]?.enabled_tools ?? []) {
      byModelName.set(modelToolName(tool), tool);
    }
    out[server] = names.map((n) => byModelName.get(n) ?? n).sort();
  }
  return out;
}

/** `a` minus `b`, per server; servers with nothing left are omitted. */
export function toolDifference(a: ToolsByServer, b: ToolsByServer): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, tools] of Object.entries(a)) {
    const other = new Set(b[server] ?? []);
    const left = tools.filter((t) => !other.has(t));
    if (left.length > 0) out[server] = left;
  }
  return out;
}

function formatTools(tools: ToolsByServer): string {
  return Object.entries(tools)
    .flatMap(([server, names]) => names.map((n) => `${server}.${n}`))
    .join(', ');
}

function withoutMesh(tools: Record<string, string[]>): ToolsByServer {
  const out: ToolsByServer = {};
  for (const [server, names] of Object.entries(tools)) {
    if (server !== RESERVED_SERVER_ID) out[server] = [...names].sort();
  }
  return out;
}

interface ProcessOutcome {
  /** Role → received tools (only for roles whose request was observed). */
  readonly received: Map<string, ToolsByServer>;
  readonly failures: SmokeServerFailure[];
  readonly diagnostics: Diagnostic[];
  readonly missingEnv: SmokeMissingEnv[];
}

/**
 * The scripted root: for each native role in turn, spawn it, wait until its first request has
 * been seen, and close it again (Codex caps concurrent sub-agents at six); then finish. A spawn
 * that fails is noted in `spawnErrors`. The root's requests arrive one at a time, so the script
 * keeps its position in a closure.
 */
function rootScript(
  natives: readonly string[],
  seen: (role: string) => boolean,
  spawnErrors: Map<string, string>,
): (request: ModelRequest) => Promise<ScriptedItem[]> {
  let position = 0;
  let awaitingSpawn = false;
  return async (request) => {
    if (awaitingSpawn) {
      awaitingSpawn = false;
      const role = natives[position] ?? '';
      position += 1;
      const output = request.toolOutputs.at(-1)?.output ?? '';
      const id = agentIdOf(output);
      if (id !== undefined) {
        await waitUntil(() => seen(role), CHILD_WAIT_MS);
        return [
          {
            type: 'function_call',
            namespace: 'multi_agent_v1',
            name: 'close_agent',
            arguments: { target: id },
          },
        ];
      }
      spawnErrors.set(role, output);
    }
    const next = natives[position];
    if (next === undefined) return [{ type: 'message', text: 'codex-mmo smoke complete' }];
    awaitingSpawn = true;
    return [
      {
        type: 'function_call',
        namespace: 'multi_agent_v1',
        name: 'spawn_agent',
        arguments: { agent_type: next, message: `${SMOKE_SPAWN_MARKER} ${next}` },
      },
    ];
  };
}

/** The `agent_id` in a `spawn_agent` result, if the spawn succeeded. */
function agentIdOf(output: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(output);
    if (isTable(parsed) && typeof parsed.agent_id === 'string') return parsed.agent_id;
  } catch {
    // not JSON: Codex reported a failure in prose
  }
  return undefined;
}

function roleOfChild(request: ModelRequest, natives: readonly string[]): string | undefined {
  for (const text of request.userTexts) {
    const at = text.indexOf(SMOKE_SPAWN_MARKER);
    if (at < 0) continue;
    const name = text.slice(at + SMOKE_SPAWN_MARKER.length).trim();
    if (natives.includes(name)) return name;
  }
  return undefined;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
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

async function smokeProcess(
  codexBin: string,
  snapshot: Snapshot,
  plan: ResolvedPlan,
  process: ResolvedProcess,
  request: SmokeRequest,
  credentials: CredentialSource,
): Promise<ProcessOutcome> {
  const natives = process.roles.filter((r) => r !== process.root);
  const received = new Map<string, ToolsByServer>();
  const failures: SmokeServerFailure[] = [];
  const diagnostics: Diagnostic[] = [];
  const missingEnv: SmokeMissingEnv[] = [];
  const rootRequired = (server: string): boolean =>
    plan.roles[process.root]?.grants[server]?.required === true;

  const work = await mkdtemp(join(tmpdir(), 'codex-mmo-smoke-'));
  const spawnErrors = new Map<string, string>();
  const seen = (role: string): boolean =>
    model.requests.some((r) => r.parentThreadId !== undefined && roleOfChild(r, natives) === role);
  const root = rootScript(natives, seen, spawnErrors);
  const model = await startScriptedModel((r) =>
    r.parentThreadId === undefined
      ? root(r)
      : [{ type: 'message', text: 'codex-mmo smoke: role checked' }],
  );
  let client: AppServerClient | undefined;
  let secrets: string[] = [...credentials.secretValues()];
  const mask = (text: string): string => maskSecrets(text, secrets);
  try {
    const codexHome = join(work, 'codex-home');
    const workdir = join(work, 'work');
    await mkdir(workdir);
    const rendered = renderProcess(snapshot, plan, process.root, { home: request.home });
    await writeRenderedHome(smokeHome(rendered, model.baseUrl), codexHome);

    const penv = processEnvironment(plan, process, {}, request.env, credentials, codexHome);
    secrets = [...secrets, ...penv.secrets];
    for (const d of penv.diagnostics) {
      diagnostics.push(d);
      const variable = /variable (\S+) is not set/.exec(d.message)?.[1];
      if (variable !== undefined && d.server !== undefined) {
        missingEnv.push({ process: process.root, variable, server: d.server });
      }
    }

    client = await AppServerClient.start({
      codexBin,
      codexHome,
      env: penv.env,
      cwd: workdir,
      clientInfo: { name: 'codex-mmo-smoke', title: 'codex-mmo profile smoke', version: '1' },
      requestTimeoutMs: startupWaitMs(plan, process) + 30_000,
    });
    let threadId: string;
    try {
      const started = await client.startThread({
        cwd: workdir,
        ephemeral: true,
        approvalPolicy: 'never',
      });
      threadId = started.thread.id;
    } catch (error) {
      if (!(error instanceof AppServerRequestError)) throw error;
      const names = failedRequiredServers(error.rpcMessage, process.servers);
      for (const server of names) {
        failures.push({
          process: process.root,
          server,
          required: true,
          error: mask(serverError(error.rpcMessage, server)),
        });
      }
      if (names.length === 0) {
        diagnostics.push(
          diagnostic({
            code: 'smoke-codex-failed',
            message: `Codex could not start a session for process '${process.root}': ${mask(error.rpcMessage)}`,
          }),
        );
      }
      return { received, failures, diagnostics, missingEnv };
    }

    // Codex starts only the servers enabled for the process root; the others stay off.
    const started = process.servers.filter(
      (server) => plan.roles[process.root]?.grants[server] !== undefined,
    );
    const statuses = await client.waitForMcpStartup(
      threadId,
      started,
      startupWaitMs(plan, process),
    );
    for (const server of started) {
      const status = statuses[server];
      if (status?.status === 'ready') continue;
      failures.push({
        process: process.root,
        server,
        required: rootRequired(server),
        error: mask(
          status === undefined
            ? 'no startup status was reported'
            : status.status === 'starting'
              ? 'still starting when the startup wait ended'
              : (status.error ?? status.status),
        ),
      });
    }

    const turn = await client.runTurn(threadId, 'codex-mmo profile smoke', {
      timeoutMs: request.turnTimeoutMs ?? DEFAULT_TURN_TIMEOUT_MS,
    });
    if (turn.turn.status !== 'completed') {
      diagnostics.push(
        diagnostic({
          code: 'smoke-turn-failed',
          message: `the scripted turn of process '${process.root}' ended ${turn.turn.status}${turn.turn.error !== null ? `: ${mask(turn.turn.error.message)}` : ''}`,
        }),
      );
    }
    const children = (): ModelRequest[] =>
      model.requests.filter((r) => r.parentThreadId !== undefined);
    await waitUntil(
      () => natives.every((n) => children().some((r) => roleOfChild(r, natives) === n)),
      CHILD_WAIT_MS,
    );
    const rootRequest = model.requests.find((r) => r.parentThreadId === undefined);
    if (rootRequest !== undefined) {
      received.set(process.root, withoutMesh(rootRequest.offeredTools.mcp));
    }
    for (const child of children()) {
      const role = roleOfChild(child, natives);
      if (role !== undefined && !received.has(role)) {
        received.set(role, withoutMesh(child.offeredTools.mcp));
      }
    }
    for (const [role, output] of spawnErrors) {
      diagnostics.push(
        diagnostic({
          code: 'smoke-codex-failed',
          message: `Codex could not spawn native role '${role}' in process '${process.root}': ${mask(output)}`,
        }),
      );
    }
    for (const error of model.errors) {
      diagnostics.push(
        diagnostic({
          code: 'smoke-codex-failed',
          message: `scripted model error in process '${process.root}': ${mask(error)}`,
        }),
      );
    }
  } catch (error) {
    const tail = client?.stderrTail.trim().split('\n').slice(-5).join('\n') ?? '';
    diagnostics.push(
      diagnostic({
        code: 'smoke-codex-failed',
        message: mask(
          `Codex failed while checking process '${process.root}': ${describeError(error)}${tail !== '' ? `\n${tail}` : ''}`,
        ),
      }),
    );
  } finally {
    await client?.close();
    await model.close();
    await rm(work, { recursive: true, force: true });
  }
  return { received, failures, diagnostics, missingEnv };
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

/** Compiles the profile and smoke-tests every process of it. Never throws for bad input. */
export async function smokeProfile(request: SmokeRequest): Promise<SmokeReport> {
  const diagnostics: Diagnostic[] = [];
  const roles: Record<string, SmokeRole> = {};
  const serversFailed: SmokeServerFailure[] = [];
  const missingEnv: SmokeMissingEnv[] = [];
  const compiled = await compileProfile({
    nameOrPath: request.nameOrPath,
    dirs: request.dirs,
    cwd: request.cwd,
    env: request.env,
  });
  diagnostics.push(...compiled.diagnostics);
  const plan = compiled.plan;
  const stored = compiled.stored;
  if (plan === undefined || stored === undefined || hasErrors(diagnostics)) {
    return {
      ok: false,
      profile: plan?.profile,
      roles,
      servers_failed: serversFailed,
      missing_env: missingEnv,
      diagnostics,
    };
  }
  const codexBin = await locateCodex(request.dirs.codexBin, request.env, request.cwd);
  if (codexBin === undefined) {
    diagnostics.push(
      diagnostic({
        code: 'codex-not-found',
        message: `Codex binary '${request.dirs.codexBin}' was not found; install @openai/codex or pass --codex-bin PATH`,
      }),
    );
    return {
      ok: false,
      profile: plan.profile,
      snapshot: stored.id,
      roles,
      servers_failed: serversFailed,
      missing_env: missingEnv,
      diagnostics,
    };
  }
  const credentials = await loadCredentials(
    configFiles(request.dirs.configDir).credentials,
    request.env,
  );
  diagnostics.push(...credentials.diagnostics);

  if (plan.processes.some((p) => p.mesh)) {
    diagnostics.push(
      diagnostic({
        severity: 'info',
        code: 'smoke-mesh-skipped',
        message:
          'mmo_mesh is not started during smoke; each participant role is checked as its own process instead',
      }),
    );
  }

  for (const process of plan.processes) {
    const outcome = await smokeProcess(
      codexBin,
      stored.snapshot,
      plan,
      process,
      request,
      credentials.source,
    );
    diagnostics.push(...outcome.diagnostics);
    serversFailed.push(...outcome.failures);
    missingEnv.push(...outcome.missingEnv);
    for (const failure of outcome.failures) {
      diagnostics.push(
        diagnostic({
          severity: failure.required ? 'error' : 'warning',
          code: 'smoke-server-failed',
          message: `server '${failure.server}' ${failure.required ? '(required) ' : ''}failed to start in process '${process.root}': ${failure.error}`,
          server: failure.server,
        }),
      );
    }
    for (const role of process.roles) {
      if (roles[role] !== undefined) continue;
      const kind: SmokeRoleKind =
        role !== process.root ? 'native' : role === plan.root ? 'root' : 'participant';
      const granted = grantedTools(plan, role);
      const got = outcome.received.get(role);
      const receivedTools = got === undefined ? {} : toOperatorNames(got, plan);
      const extra = got === undefined ? {} : toolDifference(receivedTools, granted);
      const missing = got === undefined ? {} : toolDifference(granted, receivedTools);
      roles[role] = {
        process: process.root,
        kind,
        shared_process: kind === 'native',
        measured: got !== undefined,
        granted,
        received: receivedTools,
        extra,
        missing,
      };
      diagnostics.push(...roleDiagnostics(role, roles[role]));
    }
  }
  return {
    ok: !hasErrors(diagnostics),
    profile: plan.profile,
    snapshot: stored.id,
    roles,
    servers_failed: serversFailed,
    missing_env: missingEnv,
    diagnostics,
  };
}

/** What a role's measurement means: errors for a root or participant, warnings for a native role. */
function roleDiagnostics(name: string, role: SmokeRole): Diagnostic[] {
  const out: Diagnostic[] = [];
  const native = role.kind === 'native';
  if (!role.measured) {
    out.push(
      diagnostic({
        severity: native ? 'warning' : 'error',
        code: 'smoke-role-not-measured',
        message: `no model request of role '${name}' (process '${role.process}') was observed, so its tools could not be checked`,
      }),
    );
    return out;
  }
  const extra = formatTools(role.extra);
  const missing = formatTools(role.missing);
  if (native && (extra !== '' || missing !== '')) {
    const parts = [
      extra !== '' ? `received tools it was not granted (${extra})` : '',
      missing !== '' ? `did not receive granted tools (${missing})` : '',
    ].filter((p) => p !== '');
    out.push(
      diagnostic({
        severity: 'warning',
        code: 'native-role-not-isolated',
        message: `native role '${name}' ${parts.join(' and ')}: measured, Codex gives a native role the tools of its process root '${role.process}'; make it a participant (spawn) to enforce its grants`,
      }),
    );
    return out;
  }
  if (extra !== '') {
    out.push(
      diagnostic({
        code: 'smoke-tool-extra',
        message: `role '${name}' received tools it was not granted: ${extra}`,
      }),
    );
  }
  if (missing !== '') {
    out.push(
      diagnostic({
        code: 'smoke-tool-missing',
        message: `role '${name}' did not receive granted tools: ${missing}; check that the server offers them (tool-mcp probe) and that it started`,
      }),
    );
  }
  return out;
}
