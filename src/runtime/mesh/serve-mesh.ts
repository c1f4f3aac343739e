/**
 * `mmo_mesh` for one Codex process: finds the session broker and its supervisor through the
 * session record, verifies that the supervisor listens there (a listener that is not verified
 * never sees the credential), introduces itself as the given process with that process's mesh
 * credential, and serves the mesh tools — on a transport the session's gateway hands it (an MCP
 * session of its loopback endpoint, in the supervisor), or over stdio as `mesh serve` until its
 * input closes. The session root's server of an interactive run also puts participants' approval
 * requests to the person at the TUI (tui-approvals.ts). Without a reachable broker it still
 * serves, answering every call with a clear tool error, so a session never fails just because a
 * mesh call cannot be honoured.
 */
import type { Duplex, Readable, Writable } from 'node:stream';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

import { promptApprovals } from '../approvals/tui-approvals.js';
import { describeError } from '../../foundation/errors.js';
import { readSessionRecord } from '../session/session-store.js';
import { thisProcess, type ExpectedListener } from '../../foundation/process/socket-listener.js';
import { BrokerClient } from './broker-client.js';
import { createMeshServer } from './mesh-server.js';
import type { MeshServerInfo } from './mesh-tools.js';
import { MeshError, type MeshBackend, type MeshCaller } from '../protocol/mesh-protocol.js';

export interface MeshConnectOptions {
  readonly sessionDir: string;
  readonly caller: MeshCaller;
  /** The calling Codex process's mesh credential (`CODEX_MMO_MESH_TOKEN`), if it has one. */
  readonly token?: string;
  /** The broker's socket, when known (else read from the session record). */
  readonly socketPath?: string;
  /**
   * The process that must be listening on the broker's socket: with `socketPath` default this
   * process (the supervisor serving `mmo_mesh` itself); else the session record's supervisor.
   */
  readonly supervisor?: ExpectedListener;
  /**
   * A connection to the session's broker in this process, when this process supervises the
   * session (its gateway serves `mmo_mesh`): then no socket is opened, nor its listener verified.
   */
  readonly local?: () => Duplex | undefined;
}

export interface ServeMeshOptions extends MeshConnectOptions {
  readonly stdin: Readable;
  readonly stdout: Writable;
}

/** A backend whose every call fails with the same error. */
export function failingBackend(error: MeshError): MeshBackend {
  const fail = (): Promise<never> => Promise.reject(error);
  return { spawn: fail, send: fail, wait: fail, list: fail, stop: fail };
}

/** A backend whose every call fails with the same explanation. */
export function unavailableBackend(message: string): MeshBackend {
  return failingBackend(new MeshError('unavailable', message));
}

async function connectBackend(
  options: MeshConnectOptions,
): Promise<{ backend: MeshBackend; info: MeshServerInfo; client?: BrokerClient }> {
  const fallbackInfo: MeshServerInfo = { role: options.caller.process, spawn: [], control: [] };
  const local = options.local?.();
  if (local !== undefined) {
    return introduce(BrokerClient.open(local, options.caller, options.token), fallbackInfo);
  }
  let socketPath: string;
  let supervisor: ExpectedListener;
  try {
    if (options.socketPath !== undefined) {
      socketPath = options.socketPath;
      supervisor = options.supervisor ?? thisProcess();
    } else {
      const record = await readSessionRecord(options.sessionDir);
      socketPath = record.mesh_socket;
      supervisor = options.supervisor ?? { pid: record.pid, start: record.pid_start };
    }
  } catch (error) {
    return {
      backend: unavailableBackend(
        `no running codex-mmo session at ${options.sessionDir} (${describeError(error)}); start the profile with 'codex-mmo run' or 'codex-mmo exec'`,
      ),
      info: fallbackInfo,
    };
  }
  return introduce(
    BrokerClient.connect(socketPath, options.caller, options.token, supervisor),
    fallbackInfo,
  );
}

/** The backend of a broker connection being introduced, or one that explains its failure. */
async function introduce(
  opening: ReturnType<typeof BrokerClient.open>,
  fallbackInfo: MeshServerInfo,
): Promise<{ backend: MeshBackend; info: MeshServerInfo; client?: BrokerClient }> {
  try {
    const { client, hello } = await opening;
    return {
      backend: client,
      info: { role: hello.role, spawn: hello.spawn, control: hello.control },
      client,
    };
  } catch (error) {
    const backend =
      error instanceof MeshError ? failingBackend(error) : unavailableBackend(describeError(error));
    return { backend, info: fallbackInfo };
  }
}

/**
 * Serves `mmo_mesh` on `transport` (started here) until it closes; its broker connection ends
 * with it. Resolves once it serves.
 */
export async function serveMeshOn(
  options: MeshConnectOptions,
  transport: Transport,
): Promise<void> {
  const { backend, info, client } = await connectBackend(options);
  const server = createMeshServer(backend, info);
  server.onclose = () => {
    client?.close();
  };
  // the root of an interactive run is asked about participants' approvals (an MCP elicitation)
  if (client !== undefined && options.caller.participant === 'root') {
    server.oninitialized = () => {
      if (!server.canElicitForms()) return;
      void promptApprovals(server, client).catch(() => undefined);
    };
  }
  await server.connect(transport);
}

/** Serves `mmo_mesh` on the given streams; resolves when the input closes. */
export async function serveMesh(options: ServeMeshOptions): Promise<void> {
  // loaded here: the SDK's stdio module opens the process's standard streams as it loads
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const done = new Promise<void>((resolve) => {
    options.stdin.once('end', resolve);
    options.stdin.once('close', resolve);
  });
  await serveMeshOn(options, transport);
  const served = transport.onclose;
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => {
      served?.();
      resolve();
    };
  });
  await Promise.race([done, closed]);
  await transport.close().catch(() => undefined);
}
