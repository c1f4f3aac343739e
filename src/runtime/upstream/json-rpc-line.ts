/**
 * One line of a stdio server's output read as a JSON-RPC 2.0 message (pure): a request, a
 * notification, a result or an error, rebuilt from those members only. Anything else — not JSON,
 * another shape — is not a message (the transport counts it as noise, as Codex skips it).
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string | number {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function isError(value: unknown): boolean {
  return (
    isObject(value) &&
    typeof value.code === 'number' &&
    Number.isInteger(value.code) &&
    typeof value.message === 'string'
  );
}

/** The message on `line`, or undefined when the line is not one. */
export function readJsonRpcLine(line: string): JSONRPCMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.jsonrpc !== '2.0') return undefined;
  const { id, method, params, result, error } = value;
  if (params !== undefined && !isObject(params)) return undefined;
  if (typeof method === 'string') {
    if ('id' in value && !isId(id)) return undefined;
    return {
      jsonrpc: '2.0',
      ...('id' in value ? { id } : {}),
      method,
      ...(params !== undefined ? { params } : {}),
    };
  }
  if (!isId(id) || method !== undefined) return undefined;
  if (isObject(result) && error === undefined) {
    return { jsonrpc: '2.0', id, result };
  }
  if (isError(error) && result === undefined) {
    return { jsonrpc: '2.0', id, error } as JSONRPCMessage;
  }
  return undefined;
}
