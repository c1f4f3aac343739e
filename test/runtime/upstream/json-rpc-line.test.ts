/**
 * A stdio server's output line read as a JSON-RPC message: each kind is kept with its JSON-RPC
 * members only, anything else is not a message (noise).
 */
import { describe, expect, it } from 'vitest';

import { readJsonRpcLine } from '../../../src/runtime/upstream/json-rpc-line.js';

describe('a JSON-RPC line', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":1,"method":"ping"}', { jsonrpc: '2.0', id: 1, method: 'ping' }],
    [
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}',
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info' } },
    ],
    ['{"jsonrpc":"2.0","id":"a","result":{}}', { jsonrpc: '2.0', id: 'a', result: {} }],
    [
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}',
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no' } },
    ],
    [
      '{"jsonrpc":"2.0","id":3,"result":{"x":1},"extra":"dropped"}',
      { jsonrpc: '2.0', id: 3, result: { x: 1 } },
    ],
  ])('reads %s', (line, message) => {
    expect(readJsonRpcLine(line)).toEqual(message);
  });

  it.each([
    'starting server...',
    '[1,2]',
    '{"id":1,"method":"ping"}',
    '{"jsonrpc":"1.0","id":1,"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    '{"jsonrpc":"2.0","method":"ping","params":[1]}',
    '{"jsonrpc":"2.0","id":1,"result":"text"}',
    '{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}',
    '{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}',
    '{"jsonrpc":"2.0","result":{}}',
  ])('is not a message: %s', (line) => {
    expect(readJsonRpcLine(line)).toBeUndefined();
  });
});
