/**
 * The one way codex-mmo reaches a real Tool MCP server — behind a session's relay connection, and
 * for `tool-mcp probe`/`pin` — started the way Codex would start it: a stdio server with exactly
 * its own `env_vars` and `env` on top of Codex's default names, in its own process group (see
 * `ProcessGroupTransport`); a Streamable HTTP server with its bearer token and headers. Returned
 * as an MCP SDK `Transport` carrying raw JSON-RPC messages.
 */
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import { describeError } from '../../foundation/errors.js';
import { planLaunch, type LaunchContext } from './launch-plan.js';
import { ProcessGroupTransport } from './process-group-transport.js';
import { perRequestFetch, type ParamHeaderBook } from './request-headers.js';
import { RevisionTransport } from './revision-transport.js';
import { resolveCommand } from '../../config/registry/readiness.js';
import type { ServerDefinition } from '../../config/registry/types.js';

export interface Upstream {
  /** Started: for the relay's raw messages, in the server's own revision (see `RevisionTransport`). */
  readonly transport: Transport;
  /** The revision spoken with the server, once its handshake is answered. */
  revision(): string | undefined;
  /** The stdio server's transport, for what it reports besides messages (noise, exit). */
  readonly stdio?: ProcessGroupTransport;
  /** The HTTP connection, for its negotiated version and session. */
  readonly http?: StreamableHTTPClientTransport;
  /** The server's process id (stdio), the leader of its own process group. */
  readonly pid?: number;
  /** Recent stderr of a stdio server (unmasked: mask before showing). */
  stderrText(): string;
  /** Why the server went away, for messages. */
  describeExit(): string;
  stop(): Promise<void>;
  /** Whether the server is still there (a started stdio process that has not exited). */
  alive(): boolean;
  /** Every credential value the server was given. */
  readonly secrets: readonly string[];
}

export class UpstreamStartError extends Error {}

/** Where a server is, once its launch is planned and its command resolved. */
export type UpstreamTarget =
  | {
      readonly transport: 'stdio';
      /** Resolved executable path. */
      readonly command: string;
      readonly args: readonly string[];
      readonly cwd: string;
      readonly env: Readonly<Record<string, string>>;
    }
  | {
      readonly transport: 'streamable_http';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    };

export interface UpstreamOptions {
  /** Grace between SIGTERM and SIGKILL when a stdio server is stopped. */
  readonly graceMs?: number;
  /** Credential values the server was given. */
  readonly secrets?: readonly string[];
  /** Start a stdio server in a container of its own (a session's server). */
  readonly contained?: boolean;
}

/** Grace between SIGTERM and SIGKILL when a stdio server is stopped. */
export const UPSTREAM_GRACE_MS = 1500;

/** Starts (stdio) or prepares (HTTP) the server of `definition` for one relay connection. */
export async function startUpstream(
  definition: ServerDefinition,
  ctx: LaunchContext,
  options: Pick<UpstreamOptions, 'graceMs'> = {},
): Promise<Upstream> {
  const plan = planLaunch(definition, ctx);
  const launch = plan.launch;
  // a session's server: what it starts, detached or not, ends with it
  const opts = { ...options, secrets: plan.secrets, contained: true };
  if (launch.transport === 'stdio') {
    const command = await resolveCommand(launch.command, launch.env, ctx.home);
    if (command === undefined) {
      throw new UpstreamStartError(`cannot start ${launch.command}: no such executable`);
    }
    try {
      return await openUpstream(
        { transport: 'stdio', command, args: launch.args, cwd: launch.cwd, env: launch.env },
        opts,
      );
    } catch (error) {
      throw new UpstreamStartError(
        `cannot start ${launch.command}: ${describeError(error instanceof UpstreamStartError && error.cause !== undefined ? error.cause : error)}`,
      );
    }
  }
  if (launch.missingBearer) {
    throw new UpstreamStartError(
      `the bearer token variable ${definition.transport === 'streamable_http' ? (definition.bearer_token_env_var ?? '') : ''} is not set`,
    );
  }
  return openUpstream(
    { transport: 'streamable_http', url: launch.url, headers: launch.headers },
    opts,
  );
}

/** Starts (stdio) or prepares (HTTP) the server at `target`. */
export async function openUpstream(
  target: UpstreamTarget,
  options: UpstreamOptions = {},
): Promise<Upstream> {
  const secrets = options.secrets ?? [];
  if (target.transport === 'stdio') {
    const transport = new ProcessGroupTransport({
      command: target.command,
      args: target.args,
      cwd: target.cwd,
      env: target.env,
      graceMs: options.graceMs ?? UPSTREAM_GRACE_MS,
      ...(options.contained === true ? { contained: true } : {}),
    });
    try {
      await transport.start();
    } catch (error) {
      throw new UpstreamStartError(`cannot start ${target.command}: ${describeError(error)}`, {
        cause: error,
      });
    }
    const revision = new RevisionTransport(transport);
    return {
      transport: revision,
      revision: () => revision.revision,
      stdio: transport,
      ...(transport.pid !== undefined ? { pid: transport.pid } : {}),
      stderrText: () => transport.stderrText(),
      describeExit: () => transport.describeExit(),
      stop: () => transport.stop(),
      alive: () => transport.exit === undefined && transport.spawnError === undefined,
      secrets,
    };
  }
  // the SDK's HTTP client loads with the first HTTP server, not with every session
  const { StreamableHTTPClientTransport: HttpClientTransport } =
    await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  // the tools' `x-mcp-header` declarations, learnt from the server's own tools/list answers
  const book: ParamHeaderBook = new Map();
  const http = new HttpClientTransport(new URL(target.url), {
    requestInit: { headers: { ...target.headers } },
    fetch: perRequestFetch(fetch, book),
  });
  await http.start();
  const revision = new RevisionTransport(http, book);
  let closed = false;
  return {
    transport: revision,
    revision: () => revision.revision,
    http,
    stderrText: () => '',
    describeExit: () => 'the HTTP connection closed',
    alive: () => !closed,
    stop: async () => {
      if (closed) return;
      closed = true;
      if (http.sessionId !== undefined) {
        await Promise.race([
          http.terminateSession().catch(() => undefined),
          new Promise((resolve) => setTimeout(resolve, 2000)),
        ]);
      }
      await http.close().catch(() => undefined);
    },
    secrets,
  };
}

/**
 * `upstream`'s transport for an MCP SDK `Client` of our own (probe): already started, so the
 * client's `start()` is a no-op; everything else is the upstream's.
 */
export function clientTransport(upstream: Upstream): Transport {
  const inner = upstream.transport;
  return {
    start: () => Promise.resolve(),
    send: (message, options) => inner.send(message, options),
    close: () => upstream.stop(),
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
    get sessionId() {
      return inner.sessionId;
    },
    set onmessage(handler: Transport['onmessage']) {
      inner.onmessage = handler;
    },
    get onmessage() {
      return inner.onmessage;
    },
    set onclose(handler: Transport['onclose']) {
      inner.onclose = handler;
    },
    get onclose() {
      return inner.onclose;
    },
    set onerror(handler: Transport['onerror']) {
      inner.onerror = handler;
    },
    get onerror() {
      return inner.onerror;
    },
  };
}
