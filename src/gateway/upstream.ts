/**
 * The real Tool MCP server behind one relay connection, started the way Codex would start it: a
 * stdio server with exactly its own `env_vars` and `env` on top of Codex's default names, in its
 * own process group (see `ProcessGroupTransport`); a Streamable HTTP server with its bearer token
 * and headers. Returned as an MCP SDK `Transport` carrying raw JSON-RPC messages.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import { describeError } from '../errors.js';
import { planLaunch, type LaunchContext } from '../probe/launch-plan.js';
import { ProcessGroupTransport } from '../probe/process-group-transport.js';
import { resolveCommand } from '../registry/readiness.js';
import type { ServerDefinition } from '../registry/types.js';

export interface Upstream {
  readonly transport: Transport;
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

/** Grace between SIGTERM and SIGKILL when a stdio server is stopped. */
export const UPSTREAM_GRACE_MS = 1500;

/** Starts (stdio) or prepares (HTTP) the server of `definition` for one relay connection. */
export async function startUpstream(
  definition: ServerDefinition,
  ctx: LaunchContext,
): Promise<Upstream> {
  const plan = planLaunch(definition, ctx);
  const launch = plan.launch;
  if (launch.transport === 'stdio') {
    const command = await resolveCommand(launch.command, launch.env, ctx.home);
    if (command === undefined) {
      throw new UpstreamStartError(`cannot start ${launch.command}: no such executable`);
    }
    const transport = new ProcessGroupTransport({
      command,
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      graceMs: UPSTREAM_GRACE_MS,
    });
    try {
      await transport.start();
    } catch (error) {
      throw new UpstreamStartError(`cannot start ${launch.command}: ${describeError(error)}`);
    }
    return {
      transport,
      ...(transport.pid !== undefined ? { pid: transport.pid } : {}),
      stderrText: () => transport.stderrText(),
      describeExit: () => transport.describeExit(),
      stop: () => transport.stop(),
      alive: () => transport.exit === undefined && transport.spawnError === undefined,
      secrets: plan.secrets,
    };
  }
  if (launch.missingBearer) {
    throw new UpstreamStartError(
      `the bearer token variable ${definition.transport === 'streamable_http' ? (definition.bearer_token_env_var ?? '') : ''} is not set`,
    );
  }
  const http = new StreamableHTTPClientTransport(new URL(launch.url), {
    requestInit: { headers: { ...launch.headers } },
  });
  await http.start();
  let closed = false;
  return {
    transport: http,
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
    secrets: plan.secrets,
  };
}
