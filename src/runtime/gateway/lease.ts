/**
 * A leased server (docs/design.md §14): until a Codex process asks its server for something
 * beyond the handshake, the gateway answers `initialize`, `ping` and `tools/list` from the pin's
 * lease; on the first other request it starts the server, repeats Codex's own `initialize` to it
 * and lists its tools again, so every later call is checked against the live surface (and the
 * live `initialize` answer against the pinned one; Codex keeps the pinned one it was given).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

import type { ServerLease } from '../../config/snapshot/types.js';
import type { Upstream } from '../upstream/upstream.js';
import { MAX_TOOL_PAGES } from '../probe/tool-surface.js';
import {
  MCP_PROTOCOL_VERSIONS as PROTOCOL_VERSIONS,
  handshakeOf,
  negotiatedProtocolVersion,
} from '../protocol/mcp-versions.js';

/**
 * The version a leased server answers: the one Codex asked for when it is a revision no newer
 * than the one the server spoke at its pin (as MCP servers negotiate), else the pin's. A server
 * pinned in a per-request revision (2026-07-28) is reached through the upstream's translation,
 * so Codex's session gets the session revision it asked for (or the newest).
 */
export function leaseProtocolVersion(lease: ServerLease, requested: unknown): string {
  if (handshakeOf(lease.protocol_version) === 'discover') {
    return negotiatedProtocolVersion(requested);
  }
  const pinned = PROTOCOL_VERSIONS.indexOf(lease.protocol_version);
  const asked = typeof requested === 'string' ? PROTOCOL_VERSIONS.indexOf(requested) : -1;
  return asked >= 0 && pinned >= 0 && asked <= pinned
    ? (PROTOCOL_VERSIONS[asked] ?? lease.protocol_version)
    : lease.protocol_version;
}

/** The `initialize` result the lease gives for Codex's `params`. */
export function leaseInitializeResult(
  lease: ServerLease,
  params: unknown,
): Record<string, unknown> {
  const requested =
    typeof params === 'object' && params !== null
      ? (params as Record<string, unknown>).protocolVersion
      : undefined;
  return {
    protocolVersion: leaseProtocolVersion(lease, requested),
    capabilities: lease.capabilities,
    serverInfo: lease.server_info,
    ...(lease.instructions !== undefined ? { instructions: lease.instructions } : {}),
  };
}

export type LeaseStart =
  | {
      readonly ok: true;
      /** The live server's `initialize` result. */
      readonly initialize: Record<string, unknown>;
      /** Every tool the live server lists now. */
      readonly tools: readonly unknown[];
      /** What the server sent meanwhile that was not an answer to the handshake, in order. */
      readonly early: readonly JSONRPCMessage[];
    }
  | { readonly ok: false; readonly reason: string };

const ID_PREFIX = 'codex-mmo-lease-';

/**
 * Repeats the handshake Codex made with the lease on the server just started: `initialize` with
 * Codex's params, `notifications/initialized`, then `tools/list` to its end, within `timeoutMs`.
 * The upstream's `onmessage` is the handshake's until it resolves.
 */
export function leaseHandshake(
  upstream: Upstream,
  init: unknown,
  timeoutMs: number,
): Promise<LeaseStart> {
  const transport = upstream.transport;
  const early: JSONRPCMessage[] = [];
  let next = 0;
  let waiting: { id: string; settle: (message: Record<string, unknown>) => void } | undefined;
  let done: ((outcome: LeaseStart) => void) | undefined;
  const finish = (outcome: LeaseStart): void => {
    const settle = done;
    done = undefined;
    waiting = undefined;
    clearTimeout(timer);
    settle?.(outcome);
  };
  const timer = setTimeout(() => {
    finish({
      ok: false,
      reason: `it did not answer initialize and tools/list within ${String(timeoutMs / 1000)} s`,
    });
  }, timeoutMs);
  transport.onmessage = (message) => {
    const m = message as Record<string, unknown>;
    if (waiting !== undefined && m.id === waiting.id && !('method' in m)) waiting.settle(m);
    else early.push(message);
  };
  transport.onclose = () => {
    finish({ ok: false, reason: `it ended while starting: ${upstream.describeExit()}` });
  };
  const ask = (method: string, params: unknown): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const id = `${ID_PREFIX}${String(++next)}`;
      waiting = {
        id,
        settle: (answer) => {
          if (isObject(answer.result)) resolve(answer.result);
          else reject(new Error(`${method} failed: ${JSON.stringify(answer.error ?? null)}`));
        },
      };
      transport
        .send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage)
        .catch((error: unknown) => {
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  const run = async (): Promise<LeaseStart> => {
    const initialized = await ask('initialize', init);
    const version = initialized.protocolVersion;
    if (typeof version === 'string') transport.setProtocolVersion?.(version);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const tools: unknown[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const listed = await ask('tools/list', cursor === undefined ? {} : { cursor });
      if (Array.isArray(listed.tools)) tools.push(...(listed.tools as unknown[]));
      cursor = listed.nextCursor;
      if (typeof cursor !== 'string' || cursor === '') break;
    }
    return { ok: true, initialize: initialized, tools, early };
  };
  return new Promise<LeaseStart>((resolve) => {
    done = resolve;
    run().then(finish, (error: unknown) => {
      finish({ ok: false, reason: error instanceof Error ? error.message : String(error) });
    });
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
