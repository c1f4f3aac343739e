/**
 * `probeServer`: starts one Tool MCP server exactly as Codex would, lists its tools, stops it,
 * and judges the result against the registry entry and the pin. Readiness problems (command,
 * cwd, variables) are reported first; a server that cannot be launched is not started at all.
 */
import { countOf } from '../../foundation/diagnostics/count-words.js';
import { diagnostic, hasErrors, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { entryLocation } from '../../config/registry/entry-location.js';
import { checkReadiness, type Readiness } from '../../config/registry/readiness.js';
import type { RegistryEntry, ServerDefinition, Transport } from '../../config/registry/types.js';
import type { CodexVersionFacts } from '../../config/codex/codex-versions.js';
import { analyzeSurface, type ProbedTool } from './analyze-surface.js';
import { planLaunch, type Launch, type LaunchContext } from '../upstream/launch-plan.js';
import type { FailureKind, LiveSurface, LiveTarget, ServerInfo } from './list-tools-live.js';
import { canonicalJson } from '../../config/snapshot/canonical-json.js';
import type { ServerLease } from '../../config/snapshot/types.js';
import type { LockFileContents } from '../../config/lock/lock-file.js';
import { maskDeep } from '../../foundation/diagnostics/mask-secrets.js';
import type { PartChange, ToolDrift } from './tool-drift.js';
import { ownValue } from '../../config/registry/own-record.js';
import { checkAgainstPin, identityChange } from '../../config/lock/pin-check.js';
import type { ServerPin, ServerSurfacePin } from '../../config/lock/lock-format.js';
import { keyLocation } from '../../foundation/toml/key-positions.js';
import { compareServerWithPin, revisionChange, serverSurfaceOf } from './server-drift.js';

export interface ProbeContext extends LaunchContext {
  /** The lock file as read (`readLockFile`); pins are compared against it. */
  readonly lock: LockFileContents;
  /** Grace between SIGTERM and SIGKILL when stopping a stdio server. */
  readonly graceMs?: number;
  /** The Codex whose approval behaviour the ASKS column and `approval-mode-risk` describe. */
  readonly codex?: CodexVersionFacts;
}

export interface ProbeResult {
  /** No error among `diagnostics`. */
  readonly ok: boolean;
  readonly server: string;
  readonly transport: Transport;
  /** Whether the server was started (or connected to) at all. */
  readonly launched: boolean;
  /** Stdio: the executable the command resolved to. */
  readonly commandPath?: string;
  readonly serverInfo?: ServerInfo;
  readonly protocolVersion?: string;
  readonly timeToReadyMs?: number;
  /** Every tool the server offers, in its order. */
  readonly tools: readonly ProbedTool[];
  /**
   * What a pin records for a lease: the `initialize` answer and every tool as listed. Absent
   * when the server did not start, or when a credential value appears in any of it.
   */
  readonly lease?: ServerLease;
  readonly drift: readonly ToolDrift[];
  /**
   * What the server said of itself (instructions, server info, resources, prompts) as a pin
   * records it; absent when the server did not become ready.
   */
  readonly surface?: ServerSurfacePin;
  /** How `surface` differs from the pin's (empty when it matches or nothing was pinned). */
  readonly serverDrift: readonly PartChange[];
  /** The last lines the server wrote to stderr (stdio), credential values masked. */
  readonly stderrTail: readonly string[];
  readonly diagnostics: readonly Diagnostic[];
}

/** Lines of stderr kept for reports. */
export const STDERR_TAIL_LINES = 20;
const STDERR_LINE_MAX = 300;

const FAILURE_CODES: Readonly<Record<FailureKind, string>> = {
  'start-failed': 'probe-start-failed',
  timeout: 'probe-timeout',
  'protocol-error': 'probe-protocol-error',
};

function tailLines(text: string): string[] {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  return lines
    .slice(-STDERR_TAIL_LINES)
    .map((l) => (l.length > STDERR_LINE_MAX ? `${l.slice(0, STDERR_LINE_MAX)}…` : l));
}

/**
 * What to start, as Codex would: the resolved command or the URL with its headers; or, when the
 * server cannot be started, why not (what to fix).
 */
function liveTarget(
  definition: ServerDefinition,
  launch: Launch,
  readiness: Readiness,
  ctx: ProbeContext,
): LiveTarget | string {
  if (launch.transport === 'stdio') {
    const resolved = readiness.command?.resolved;
    if (resolved === undefined) {
      return `its command '${launch.command}' does not resolve to an executable; fix command (see the command error), then probe again`;
    }
    if (readiness.cwd !== undefined && !readiness.cwd.exists) {
      return `its working directory ${readiness.cwd.path} is not an existing directory; create it or change cwd, then probe again`;
    }
    return {
      transport: 'stdio',
      command: resolved,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
    };
  } else {
    if (launch.missingBearer) {
      const name =
        definition.transport === 'streamable_http' ? definition.bearer_token_env_var : undefined;
      return `its bearer token variable ${name ?? ''} is not set, and Codex does not start an HTTP server without it; add ${name ?? 'it'}=… to ${ctx.credentials.file} or export it, then probe again`;
    }
    return { transport: 'streamable_http', url: launch.url, headers: launch.headers };
  }
}

/** The lease of a surface, unless a credential value appears anywhere in it. */
function leaseOf(surface: LiveSurface, secrets: readonly string[]): { lease?: ServerLease } {
  const lease: ServerLease = {
    protocol_version: surface.protocolVersion,
    server_info: surface.serverInfoRaw,
    capabilities: surface.capabilities,
    ...(surface.instructions !== undefined ? { instructions: surface.instructions } : {}),
    tools: surface.listed,
  };
  const text = canonicalJson(lease);
  return canonicalJson(maskDeep(lease, secrets)) === text ? { lease } : {};
}

/** Probes one registry entry. Never throws for server misbehaviour; the server is always stopped. */
export async function probeServer(entry: RegistryEntry, ctx: ProbeContext): Promise<ProbeResult> {
  const definition = entry.definition;
  const server = definition.id;
  const readiness = await checkReadiness(entry, {
    env: ctx.env,
    home: ctx.home,
    credentials: ctx.credentials,
  });
  const commandPath = readiness.command?.resolved;
  const base = {
    server,
    transport: definition.transport,
    ...(commandPath !== undefined ? { commandPath } : {}),
  };
  const pin = ownValue(ctx.lock.lock.servers, server);
  const diagnostics: Diagnostic[] = [
    ...ctx.lock.diagnostics,
    ...readiness.diagnostics,
    ...checkAgainstPin(entry, pin, commandPath, ctx.lock.file, false),
  ];
  const plan = planLaunch(definition, ctx);
  const notLaunched = (why: string): ProbeResult => {
    diagnostics.push(
      diagnostic({
        code: 'probe-start-failed',
        message: `server '${server}' was not started: ${why}`,
        server,
        ...entryLocation(entry),
      }),
    );
    return {
      ok: false,
      ...base,
      launched: false,
      tools: [],
      drift: [],
      serverDrift: [],
      stderrTail: [],
      diagnostics,
    };
  };

  // what to start, as Codex would, or why it cannot be started
  const target = liveTarget(definition, plan.launch, readiness, ctx);
  if (typeof target === 'string') return notLaunched(target);

  // the MCP SDK's client and zod load with the first probe, not with every command
  const { listToolsLive } = await import('./list-tools-live.js');
  const outcome = await listToolsLive(target, {
    startupTimeoutMs: plan.startupTimeoutMs,
    secrets: plan.secrets,
    ...(ctx.graceMs !== undefined ? { graceMs: ctx.graceMs } : {}),
  });
  const stderrTail = tailLines(outcome.stderr);
  if (outcome.noise.count > 0) {
    const first = outcome.noise.lines[0] ?? '';
    diagnostics.push(
      diagnostic({
        severity: outcome.failure?.kind === 'protocol-error' ? 'error' : 'warning',
        code: 'probe-protocol-noise',
        message: `server '${server}' wrote ${countOf(outcome.noise.count, 'line')} to stdout that are not JSON-RPC (first: ${JSON.stringify(first)}); Codex skips them, but stdout is reserved for MCP messages, so the server should log to stderr`,
        server,
        ...entryLocation(entry, definition.transport === 'stdio' ? ['command'] : []),
      }),
    );
  }
  if (outcome.failure !== undefined || outcome.surface === undefined) {
    const failure = outcome.failure ?? { kind: 'protocol-error' as const, reason: 'no tools' };
    const tail =
      stderrTail.length > 0
        ? `\n  stderr (last ${stderrTail.length} line${stderrTail.length === 1 ? '' : 's'}):\n${stderrTail.map((l) => `    | ${l}`).join('\n')}`
        : definition.transport === 'stdio'
          ? '\n  (the server wrote nothing to stderr)'
          : '';
    diagnostics.push(
      diagnostic({
        code: FAILURE_CODES[failure.kind],
        message: `server '${server}': ${failure.reason}${tail}`,
        server,
        ...entryLocation(entry),
      }),
    );
    return {
      ok: false,
      ...base,
      launched: true,
      tools: [],
      drift: [],
      serverDrift: [],
      stderrTail,
      diagnostics,
    };
  }

  const surface = outcome.surface;
  for (const name of new Set(surface.duplicateTools)) {
    diagnostics.push(
      diagnostic({
        severity: 'warning',
        code: 'probe-duplicate-tool',
        message: `server '${server}' lists tool '${name}' more than once; the first definition is used`,
        server,
        ...entryLocation(entry),
      }),
    );
  }
  const changed = identityChange(entry, pin, maskDeep(surface.serverInfo, plan.secrets));
  if (changed !== undefined) diagnostics.push(changed);
  const analysis = analyzeSurface(
    entry,
    surface.tools,
    {
      ...(pin !== undefined ? { pin } : {}),
      file: ctx.lock.file,
      ...(ctx.lock.positions !== undefined ? { positions: ctx.lock.positions } : {}),
    },
    plan.secrets,
    ctx.codex,
  );
  diagnostics.push(...analysis.diagnostics);
  const own = serverSurfaceOf(
    {
      serverInfo: surface.serverInfoRaw,
      ...(surface.instructions !== undefined ? { instructions: surface.instructions } : {}),
      ...surface.catalogs,
    },
    plan.secrets,
  );
  const revision = revisionChange(pin?.protocolVersion, surface.protocolVersion);
  const serverDrift = [
    ...(revision !== undefined ? [revision] : []),
    ...(pin?.surface !== undefined ? compareServerWithPin(own, pin.surface) : []),
  ];
  if (pin !== undefined && serverDrift.length > 0) {
    diagnostics.push(serverDriftDiagnostic(pin, serverDrift, ctx.lock));
  }
  return {
    ok: !hasErrors(diagnostics),
    ...base,
    launched: true,
    serverInfo: maskDeep(surface.serverInfo, plan.secrets),
    protocolVersion: surface.protocolVersion,
    timeToReadyMs: surface.timeToReadyMs,
    tools: analysis.tools,
    ...leaseOf(surface, plan.secrets),
    drift: analysis.drift,
    surface: own,
    serverDrift,
    stderrTail,
    diagnostics,
  };
}

/** `server-drift`: what the server says of itself changed since its pin, part by part. */
function serverDriftDiagnostic(
  pin: ServerPin,
  changes: readonly PartChange[],
  lock: LockFileContents,
): Diagnostic {
  const id = pin.server;
  return diagnostic({
    code: 'server-drift',
    message: `server '${id}' changed what it says of itself since it was pinned: ${changes.map((c) => c.summary).join('; ')}. Instructions, server info, resources and prompts reach the model and can redirect what an agent does; review the change, then run \`codex-mmo tool-mcp pin ${id}\` to accept it`,
    server: id,
    ...keyLocation(lock.file, lock.positions, ['servers', id]),
  });
}
