/**
 * The `mmo_mesh` Agent MCP server: five tools on top of a `MeshBackend`, spoken as JSON-RPC on
 * one MCP transport. It answers `initialize`, `ping`, `tools/list` and `tools/call` and refuses
 * every other method. A refused or failed call becomes an `isError` tool result, never a crash;
 * each call passes on the calling thread Codex names in its `_meta`.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  ElicitRequestFormParams,
  ElicitResult,
  JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

import { callerThread } from '../gateway/call-record.js';
import { VERSION } from '../../foundation/version.js';
import type { ElicitingServer } from '../approvals/tui-approvals.js';
import { negotiatedProtocolVersion } from '../protocol/mcp-versions.js';
import { checkMeshArguments, type MeshToolName } from './mesh-arguments.js';
import { meshInstructions, meshToolList, type MeshServerInfo } from './mesh-tools.js';
import {
  MESH_SERVER_NAME,
  MESH_TOOL_NAMES,
  type MeshBackend,
  type MeshCallContext,
} from '../protocol/mesh-protocol.js';
import { runMeshTool, type ToolResult } from './mesh-calls.js';

type Id = string | number;

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;
/** How long an elicitation waits for its answer unless told otherwise (ms). */
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

interface Pending {
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: Error) => void;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isId(value: unknown): value is Id {
  return typeof value === 'string' || typeof value === 'number';
}

function isMeshTool(name: unknown): name is MeshToolName {
  return typeof name === 'string' && (MESH_TOOL_NAMES as readonly string[]).includes(name);
}

/** The result of a call whose name or arguments the server cannot take. */
function refusal(text: string): ToolResult {
  return {
    content: [{ type: 'text', text: `MCP error ${INVALID_PARAMS}: ${text}` }],
    isError: true,
  };
}

/** The `mmo_mesh` server for one caller; `connect` it to a transport to serve. */
export class MeshServer implements ElicitingServer {
  /** Called once the transport has closed. */
  onclose?: () => void;
  /** Called when the client says it is initialized. */
  oninitialized?: () => void;
  private transport: Transport | undefined;
  private capabilities: Record<string, unknown> | undefined;
  private readonly pending = new Map<Id, Pending>();
  /** Requests of the client being answered, and those of them it cancelled (not answered). */
  private readonly answering = new Set<Id>();
  private readonly cancelled = new Set<Id>();
  private nextId = 0;

  constructor(
    private readonly backend: MeshBackend,
    private readonly info: MeshServerInfo,
  ) {}

  /** Serves on `transport`, which is started here. */
  async connect(transport: Transport): Promise<void> {
    this.transport = transport;
    transport.onmessage = (message) => {
      this.receive(message);
    };
    transport.onclose = () => {
      this.closed();
    };
    transport.onerror = () => undefined;
    await transport.start();
  }

  /** Whether the client can be asked with a form (`elicitation` declared, with or without `form`). */
  canElicitForms(): boolean {
    const elicitation = record(this.capabilities?.elicitation);
    if (elicitation === undefined) return false;
    return Object.keys(elicitation).length === 0 || record(elicitation.form) !== undefined;
  }

  async close(): Promise<void> {
    await this.transport?.close();
  }

  /** Asks the client with a form (`elicitation/create`); aborting or timing out withdraws it. */
  elicitInput(
    params: ElicitRequestFormParams,
    options?: { readonly signal?: AbortSignal; readonly timeout?: number },
  ): Promise<ElicitResult> {
    const transport = this.transport;
    if (transport === undefined || !this.canElicitForms()) {
      return Promise.reject(new Error('the client takes no form elicitation'));
    }
    const id = `mmo-mesh-${String(++this.nextId)}`;
    return new Promise<ElicitResult>((resolve, reject) => {
      const settle = (): void => {
        clearTimeout(timer);
        options?.signal?.removeEventListener('abort', abort);
        this.pending.delete(id);
      };
      const withdraw = (reason: string): void => {
        settle();
        void transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason },
          })
          .catch(() => undefined);
        reject(new Error(reason));
      };
      const abort = (): void => {
        withdraw(String(options?.signal?.reason ?? 'withdrawn'));
      };
      const timer = setTimeout(() => {
        withdraw('the request timed out');
      }, options?.timeout ?? DEFAULT_REQUEST_TIMEOUT_MS);
      if (options?.signal?.aborted === true) {
        abort();
        return;
      }
      options?.signal?.addEventListener('abort', abort, { once: true });
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          const action = record(result)?.action;
          if (action === 'accept' || action === 'decline' || action === 'cancel') {
            resolve(result as ElicitResult);
          } else reject(new Error('the elicitation answer names no action'));
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      transport
        .send({ jsonrpc: '2.0', id, method: 'elicitation/create', params })
        .catch((error: unknown) => {
          this.pending.get(id)?.reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  private closed(): void {
    for (const pending of [...this.pending.values()]) {
      pending.reject(new Error('the connection closed'));
    }
    this.transport = undefined;
    this.onclose?.();
  }

  private receive(message: Record<string, unknown>): void {
    const { id, method } = message;
    if (typeof method !== 'string') {
      // an answer to one of our requests
      if (!isId(id)) return;
      const error = record(message.error);
      if (error !== undefined) {
        const reason = typeof error.message === 'string' ? error.message : 'the client refused';
        this.pending.get(id)?.reject(new Error(reason));
      } else this.pending.get(id)?.resolve(message.result);
      return;
    }
    if (!isId(id)) {
      this.notified(method, record(message.params));
      return;
    }
    void this.answer(id, method, record(message.params));
  }

  private notified(method: string, params: Record<string, unknown> | undefined): void {
    if (method === 'notifications/initialized') this.oninitialized?.();
    const cancelled = params?.requestId;
    if (method === 'notifications/cancelled' && isId(cancelled) && this.answering.has(cancelled)) {
      this.cancelled.add(cancelled);
    }
  }

  private async answer(
    id: Id,
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<void> {
    this.answering.add(id);
    const reply = await this.reply(method, params).finally(() => {
      this.answering.delete(id);
    });
    if (this.cancelled.delete(id)) return;
    await this.transport
      ?.send({ jsonrpc: '2.0', id, ...reply } as JSONRPCMessage, { relatedRequestId: id })
      .catch(() => undefined);
  }

  private async reply(
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<Record<string, unknown>> {
    let reply: Record<string, unknown>;
    switch (method) {
      case 'initialize':
        this.capabilities = record(params?.capabilities) ?? {};
        reply = {
          result: {
            protocolVersion: negotiatedProtocolVersion(params?.protocolVersion),
            capabilities: { tools: { listChanged: true } },
            serverInfo: { name: MESH_SERVER_NAME, version: VERSION },
            instructions: meshInstructions(this.info),
          },
        };
        break;
      case 'ping':
        reply = { result: {} };
        break;
      case 'tools/list':
        reply = { result: { tools: meshToolList(this.info) } };
        break;
      case 'tools/call':
        reply = { result: await this.call(params) };
        break;
      default:
        reply = { error: { code: METHOD_NOT_FOUND, message: 'Method not found' } };
    }
    return reply;
  }

  private async call(params: Record<string, unknown> | undefined): Promise<ToolResult> {
    const name = params?.name;
    if (!isMeshTool(name)) {
      return refusal(`Tool ${typeof name === 'string' ? name : '(unnamed)'} not found`);
    }
    const args = checkMeshArguments(name, params?.arguments);
    if (!args.ok) {
      return refusal(
        `Input validation error: Invalid arguments for tool ${name}: ${args.problems.join('\n')}`,
      );
    }
    const { thread } = callerThread(record(params?._meta));
    const context: MeshCallContext = thread === null ? {} : { thread };
    return runMeshTool(this.backend, name, args.values, context);
  }
}

/** Builds the mesh server for one caller; connect it to a transport to serve. */
export function createMeshServer(backend: MeshBackend, info: MeshServerInfo): MeshServer {
  return new MeshServer(backend, info);
}
