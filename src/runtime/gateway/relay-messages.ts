/**
 * The shapes of the JSON-RPC messages a relay connection reads and writes (pure): telling
 * requests, notifications and responses apart, rebuilding a message from its JSON-RPC members
 * only (so nothing else a client adds reaches a server), and the answers of refusals — a tool
 * error for a `tools/call` (the model sees it), a JSON-RPC error for any other request.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type Id = string | number;

/** JSON-RPC error code of a request refused by a rule of the gateway. */
export const REFUSED_CODE = -32001;
/** JSON-RPC error code of a method the gateway has no rule for. */
export const METHOD_NOT_FOUND = -32601;

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function idOf(message: Record<string, unknown>): Id | undefined {
  const id = message.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** What a message from a client is, read from its members. */
export type ClientMessage =
  | { readonly kind: 'request'; readonly id: Id; readonly method: string; readonly params: unknown }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown }
  | {
      readonly kind: 'response';
      readonly id: Id;
      readonly result?: unknown;
      readonly error?: unknown;
    }
  | { readonly kind: 'invalid'; readonly method: string };

/** Reads a message; anything that is not one JSON-RPC object (a batch, a bad id) is invalid. */
export function readClientMessage(value: unknown): ClientMessage {
  if (!isObject(value)) return { kind: 'invalid', method: Array.isArray(value) ? 'batch' : '' };
  const method = typeof value.method === 'string' ? value.method : undefined;
  const id = idOf(value);
  if (method !== undefined) {
    if (!('id' in value)) return { kind: 'notification', method, params: value.params };
    if (id === undefined) return { kind: 'invalid', method };
    return { kind: 'request', id, method, params: value.params };
  }
  if (id !== undefined && 'result' in value !== 'error' in value) {
    return 'result' in value
      ? { kind: 'response', id, result: value.result }
      : { kind: 'response', id, error: value.error };
  }
  return { kind: 'invalid', method: '' };
}

/** The message rebuilt from its JSON-RPC members only. */
export function rebuild(message: ClientMessage): JSONRPCMessage | undefined {
  switch (message.kind) {
    case 'request':
      return {
        jsonrpc: '2.0',
        id: message.id,
        method: message.method,
        ...(message.params !== undefined ? { params: message.params } : {}),
      } as JSONRPCMessage;
    case 'notification':
      return {
        jsonrpc: '2.0',
        method: message.method,
        ...(message.params !== undefined ? { params: message.params } : {}),
      } as JSONRPCMessage;
    case 'response':
      return (
        'error' in message
          ? { jsonrpc: '2.0', id: message.id, error: message.error }
          : { jsonrpc: '2.0', id: message.id, result: message.result ?? {} }
      ) as JSONRPCMessage;
    default:
      return undefined;
  }
}

/** The tool error a refused `tools/call` is answered with. */
export function refusal(id: Id, text: string): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }], isError: true },
  };
}

/** The JSON-RPC error any other refused request is answered with. */
export function rpcRefusal(id: Id, text: string, code = REFUSED_CODE): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code, message: text } };
}
