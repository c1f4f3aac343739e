/**
 * The gateway as a session uses it: one `GatewayHub` per session, and for each Codex process
 * (session root or participant) its routes — every server of the process with the root role's
 * granted tools and the snapshot's pins — and its `mmo_mesh` route, its home pointed at the
 * gateway, and the environment Codex gets: the built one minus every Tool MCP credential, plus
 * the process's gateway tokens. The servers themselves are started by the hub with the
 * credentials; Codex never holds one.
 */
import { gatewayAsks } from './call-approvals.js';
import type { CallAsker } from './held-calls.js';
import type { MeshLaunch, RenderedHome } from '../../config/compile/types.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { ResolvedPlan, ResolvedProcess } from '../../config/profile/types.js';
import type { CredentialSource } from '../../config/registry/credentials-types.js';
import { referencedEnvVars } from '../../config/registry/types.js';
import { SESSION_MARKER_ENV } from '../../foundation/process/session-marker.js';
import { BASE_ENV_NAMES, CODEX_AUTH_ENV_NAMES } from '../session/child-env.js';
import { baseProviderEnvNames } from '../session/process-env.js';
import type { ServerLease, Snapshot } from '../../config/snapshot/types.js';
import type { ServerDefinition } from '../../config/registry/types.js';
import { ownValue } from '../../config/registry/own-record.js';
import { callsFile } from './call-log.js';
import type { CallRecord } from './call-record.js';
import { GatewayHub, type DriftReport, type GatewayHubOptions } from './gateway-hub.js';
import type { BudgetRefusal } from '../session/team-budget.js';
import type { ServerFailure } from './server-failure.js';
import { relayHome, relayTokenNames, type RelayTarget } from './relay-home.js';
import { SESSION_GATEWAY_TRANSPORT, type GatewayTransport } from './gateway-transport.js';
import type { Route, ThreadAttribution } from './relay-connection.js';
import { RESERVED_SERVER_ID } from '../../config/registry/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ConnectionLimitOptions } from '../../foundation/process/connection-limits.js';

export { gatewaySocketPath } from './gateway-socket.js';

/** The `tool-drift` diagnostic of one withheld tool. */
export function driftDiagnostic(report: DriftReport): Diagnostic {
  const where =
    report.process === 'root' ? 'the session root process' : `participant '${report.process}'`;
  if (report.part !== undefined) {
    const what = report.part === 'instructions' ? 'instructions' : 'serverInfo';
    return diagnostic({
      severity: 'warning',
      code: 'server-drift',
      message:
        `server '${report.server}' answered initialize with ${report.pinned === undefined ? `${what} although its pin recorded none` : `other ${what} than its pin`} in tool-mcp.lock; ` +
        `${where} (role '${report.role}') was given the pinned ${what} instead${report.pinned === undefined ? ' (none)' : ''}; review the change with \`codex-mmo tool-mcp probe ${report.server}\` and accept it with \`codex-mmo tool-mcp pin ${report.server}\``,
      server: report.server,
    });
  }
  return diagnostic({
    severity: 'warning',
    code: 'tool-drift',
    message:
      `tool '${report.tool}' of server '${report.server}' ${report.pinned === undefined ? 'has no pin although its server is pinned' : 'differs from its pin'} in tool-mcp.lock; ` +
      `it is withheld from ${where} (role '${report.role}') for this session; review it with \`codex-mmo tool-mcp probe ${report.server}\` and accept it with \`codex-mmo tool-mcp pin ${report.server}\``,
    server: report.server,
  });
}

export interface SessionGatewayOptions {
  readonly sessionDir: string;
  readonly socketPath: string;
  readonly snapshot: Snapshot;
  readonly plan: ResolvedPlan;
  readonly credentials: CredentialSource;
  /** The user's home, for `~/` in server commands and working directories. */
  readonly home: string;
  /** The command prefix that runs the codex-mmo CLI (for the relay entries). */
  readonly cli: MeshLaunch;
  /** Credential values of the session known up front (every value of the credential source is added). */
  readonly secrets: readonly string[];
  readonly onDrift?: (report: DriftReport) => void;
  readonly onGroups?: (pids: readonly number[]) => void;
  readonly onStderr?: (process: string, server: string, text: string) => void;
  /** Every call record, as it is appended to calls.jsonl. */
  readonly onRecord?: (entry: CallRecord) => void;
  /** A server that could not start, did not answer its first request, or went away (masked). */
  readonly onServerFailure?: (failure: ServerFailure) => void;
  /**
   * The model wire's role of a thread (undefined: not seen). Given, every call is checked against
   * its calling thread's role; a call the wire cannot attribute is refused where roles differ.
   */
  readonly roleOfThread?: (threadId: string) => ThreadAttribution | undefined;
  /** How Codex reaches the gateway; `SESSION_GATEWAY_TRANSPORT` when absent. */
  readonly transport?: GatewayTransport;
  /**
   * Serves `mmo_mesh` for a process (its role, participant id and mesh credential) on an MCP
   * transport. Given, with the `http` transport, each process's `mmo_mesh` is a route of the
   * gateway (no `mesh serve` process); absent, Codex starts `mesh serve`.
   */
  readonly serveMesh?: (mesh: MeshRoute, transport: Transport) => Promise<void>;
  /** Limits on connections that have not yet authenticated, and who hears of a flood. */
  readonly limits?: ConnectionLimitOptions;
  /** Start every server on first use of its route, leased or not (a smoke run checks them all). */
  readonly startEveryServer?: boolean;
  /** The session's ceilings on server processes and memory, its memory now, who hears a refusal. */
  readonly budget?: Pick<GatewayHubOptions, 'budget' | 'memoryMb'> & {
    readonly onRefusal?: (refusal: BudgetRefusal, process: string, role: string) => void;
  };
  /** The session's approval queue, for processes whose calls the gateway asks about. */
  readonly asker?: CallAsker;
}

/** One process's `mmo_mesh` as the gateway serves it. */
export interface MeshRoute {
  /** `root` or the participant id. */
  readonly process: string;
  /** The process root role. */
  readonly role: string;
  readonly token: string;
}

export interface ProcessLaunchInput {
  /** `root` or the participant id. */
  readonly processId: string;
  readonly process: ResolvedProcess;
  /** The rendered home with the real server definitions. */
  readonly rendered: RenderedHome;
  /** The environment built for the Codex process (it still holds the servers' credentials). */
  readonly env: Readonly<Record<string, string>>;
  /** Codex's working directory: where a stdio server without `cwd` starts. */
  readonly cwd: string;
  /**
   * The gateway asks about the process's tool calls, as the calling role, where Codex would have
   * (an interactive root, whose own prompt names no role); needs `asker`.
   */
  readonly askApprovals?: boolean;
}

export interface ProcessLaunch {
  readonly rendered: RenderedHome;
  /** The Codex process's environment: no Tool MCP credential, the relay tokens added. */
  readonly env: Record<string, string>;
  /** The relay tokens (for masking). */
  readonly tokens: readonly string[];
}

/**
 * Names of `env` that only Tool MCP servers need: referenced by a server of the process and not
 * one of the base, Codex auth or model provider names Codex itself uses.
 */
export function toolCredentialNames(
  plan: ResolvedPlan,
  process: ResolvedProcess,
  base: Snapshot['base'],
): string[] {
  const keep = new Set([...BASE_ENV_NAMES, ...CODEX_AUTH_ENV_NAMES, ...baseProviderEnvNames(base)]);
  const names = new Set<string>(process.env);
  for (const id of process.servers) {
    const definition = plan.servers[id];
    if (definition !== undefined) for (const name of referencedEnvVars(definition)) names.add(name);
  }
  return [...names].filter((name) => !keep.has(name) && !name.startsWith('LC_')).sort();
}

/**
 * The lease a process's route to `server` uses: the pin's, when no role of the process requires
 * the server (a required one starts with Codex, so a server that cannot start fails the start)
 * and the server is not shared by the session's processes.
 */
export function leaseOf(
  snapshot: Snapshot,
  definition: ServerDefinition,
  grants: readonly ({ readonly required?: boolean } | undefined)[],
): ServerLease | undefined {
  const lease = ownValue(snapshot.leases ?? {}, definition.id);
  if (lease === undefined || snapshot.pins[definition.id] === undefined) return undefined;
  if (definition.shared === true || grants.some((grant) => grant?.required === true)) {
    return undefined;
  }
  return lease;
}

/** The `initialize` answer a pinned server's pin recorded (its lease's), for its tool gate. */
function pinnedInitialize(
  snapshot: Snapshot,
  server: string,
): { initialize?: Pick<ServerLease, 'server_info' | 'instructions'> } {
  const lease = ownValue(snapshot.leases ?? {}, server);
  if (lease === undefined || snapshot.pins[server] === undefined) return {};
  const { server_info, instructions } = lease;
  return { initialize: { server_info, ...(instructions !== undefined ? { instructions } : {}) } };
}

export class SessionGateway {
  private constructor(
    private readonly options: SessionGatewayOptions,
    readonly hub: GatewayHub,
  ) {}

  static async start(options: SessionGatewayOptions): Promise<SessionGateway> {
    const hub = await GatewayHub.start({
      transport: options.transport ?? SESSION_GATEWAY_TRANSPORT,
      socketPath: options.socketPath,
      callsFile: callsFile(options.sessionDir),
      secrets: [...options.secrets, ...options.credentials.secretValues()],
      ...(options.onDrift !== undefined ? { onDrift: options.onDrift } : {}),
      ...(options.onGroups !== undefined ? { onGroups: options.onGroups } : {}),
      ...(options.onRecord !== undefined ? { onRecord: options.onRecord } : {}),
      ...(options.onServerFailure !== undefined
        ? { onServerFailure: options.onServerFailure }
        : {}),
      onStderr: (route: Route, text: string) => {
        options.onStderr?.(route.process, route.server, text);
      },
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
      ...(options.budget?.budget !== undefined ? { budget: options.budget.budget } : {}),
      ...(options.budget?.memoryMb !== undefined ? { memoryMb: options.budget.memoryMb } : {}),
      onBudgetRefusal: (refusal: BudgetRefusal, route: Route) => {
        options.budget?.onRefusal?.(refusal, route.process, route.role);
      },
      ...(options.asker !== undefined ? { asker: options.asker } : {}),
    });
    return new SessionGateway(options, hub);
  }

  get socketPath(): string {
    return this.options.socketPath;
  }

  /** Whether `mmo_mesh` is a route of the gateway rather than a `mesh serve` process. */
  get servesMesh(): boolean {
    return this.options.serveMesh !== undefined && this.hub.url !== undefined;
  }

  /** Serves `mmo_mesh` of a process with its mesh credential (when `servesMesh`). */
  addMeshRoute(mesh: MeshRoute): void {
    const serve = this.options.serveMesh;
    if (serve === undefined || this.hub.url === undefined) return;
    this.hub.addLocalRoute(
      { process: mesh.process, server: RESERVED_SERVER_ID },
      mesh.role,
      mesh.token,
      (transport) => serve(mesh, transport),
    );
  }

  /** Routes, relay home and environment of one Codex process. */
  prepareProcess(input: ProcessLaunchInput): ProcessLaunch {
    const { plan, snapshot } = this.options;
    const servers = input.process.servers.filter(
      (id) => (snapshot.servers[id] ?? plan.servers[id]) !== undefined,
    );
    const target: RelayTarget = {
      cli: this.options.cli,
      socketPath: this.options.socketPath,
      process: input.processId,
      servers,
      ...(this.hub.url !== undefined ? { url: this.hub.url } : {}),
      ...(this.servesMesh && input.process.mesh ? { meshOverUrl: true } : {}),
    };
    const env: Record<string, string> = { ...input.env };
    const credentialNames = toolCredentialNames(plan, input.process, snapshot.base);
    this.hub.addSecrets(
      credentialNames.flatMap((name) => (env[name] !== undefined ? [env[name]] : [])),
    );
    for (const name of credentialNames) Reflect.deleteProperty(env, name);
    // what Codex would have started its servers with: its own environment, without tokens
    const codexEnv = { ...env };
    const grants = plan.roles[input.process.root]?.grants ?? {};
    const names = relayTokenNames(target);
    const tokens: string[] = [];
    const asked =
      input.askApprovals === true && this.options.asker !== undefined
        ? gatewayAsks(input.rendered, servers, this.options.asker.timeoutSec)
        : { rendered: input.rendered, approvals: {} };
    servers.forEach((server, index) => {
      const defined = snapshot.servers[server] ?? plan.servers[server];
      if (defined === undefined) return;
      // a stdio server carries the session's marker, so no stop path leaves it running
      const marker = env[SESSION_MARKER_ENV];
      const definition =
        marker !== undefined && defined.transport === 'stdio'
          ? { ...defined, env: { ...defined.env, [SESSION_MARKER_ENV]: marker } }
          : defined;
      const pins = snapshot.pins[server];
      const grant = grants[server];
      const roleOfThread = this.options.roleOfThread;
      const roles: Record<string, Set<string>> = {};
      for (const role of input.process.roles) {
        const own = plan.roles[role]?.grants[server];
        if (own !== undefined) roles[role] = new Set(own.enabled_tools);
      }
      const rootTools = [...(roles[input.process.root] ?? [])].sort().join('\n');
      const differs = input.process.roles.some(
        (role) => [...(roles[role] ?? [])].sort().join('\n') !== rootTools,
      );
      const everyRole = input.process.roles.every((role) => roles[role] !== undefined);
      const lease =
        this.options.startEveryServer === true
          ? undefined
          : leaseOf(
              snapshot,
              defined,
              input.process.roles.map((role) => plan.roles[role]?.grants[server]),
            );
      const token = this.hub.addRoute(
        {
          process: input.processId,
          role: input.process.root,
          server,
          definition,
          gate: {
            // with per-thread checks the process offers what any of its roles is granted
            allowed: new Set(
              roleOfThread !== undefined
                ? Object.values(roles).flatMap((tools) => [...tools])
                : (grant?.enabled_tools ?? []),
            ),
            ...(pins !== undefined ? { pins } : {}),
            // the instructions and serverInfo a pinned server's answers are held to
            ...pinnedInitialize(snapshot, server),
          },
          launch: {
            env: codexEnv,
            home: this.options.home,
            cwd: input.cwd,
            credentials: this.options.credentials,
          },
          ...(roleOfThread !== undefined
            ? { threads: { roleOf: roleOfThread, roles, differs, everyRole } }
            : {}),
          ...(lease !== undefined ? { lease } : {}),
          ...(asked.approvals[server] !== undefined ? { approvals: asked.approvals[server] } : {}),
        },
        // a server the root role uses is started at once, unless leased: Codex will ask for it
        { prestart: grant !== undefined && lease === undefined },
      );
      const name = names[index];
      if (name !== undefined) env[name] = token;
      tokens.push(token);
    });
    return { rendered: relayHome(asked.rendered, target), env, tokens };
  }

  /**
   * Names the process the supervisor spawned for `processId` (its container, or Codex itself):
   * only it and its descendants may bind that process's gateway routes, so a token read out of
   * its environment by another process of the session opens nothing, even before Codex connects.
   */
  bindSpawned(processId: string, pid: number): void {
    this.hub.bindSpawned(processId, pid);
  }

  closeProcess(processId: string): Promise<void> {
    return this.hub.closeProcess(processId);
  }

  close(): Promise<void> {
    return this.hub.close();
  }
}
