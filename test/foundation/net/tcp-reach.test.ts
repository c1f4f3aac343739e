import { createServer } from 'node:net';

import { describe, expect, it } from 'vitest';

import { addressOf, tcpReach } from '../../../src/foundation/net/tcp-reach.js';

describe('addressOf', () => {
  it('takes the host and the written or default port of an http(s) URL', () => {
    expect(addressOf('https://api.openai.com/v1')).toEqual({ host: 'api.openai.com', port: 443 });
    expect(addressOf('http://127.0.0.1:4100/v1')).toEqual({ host: '127.0.0.1', port: 4100 });
    expect(addressOf('http://[::1]:8080/')).toEqual({ host: '::1', port: 8080 });
    expect(addressOf('http://example.test')).toEqual({ host: 'example.test', port: 80 });
    expect(addressOf('ws://127.0.0.1:1')).toBeUndefined();
    expect(addressOf('not a url')).toBeUndefined();
  });
});

describe('tcpReach', () => {
  it('reaches a listening address and names why a closed one is not reached', async () => {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    expect(await tcpReach('127.0.0.1', port, 2_000)).toEqual({ ok: true });
    await new Promise((done) => server.close(done));
    expect(await tcpReach('127.0.0.1', port, 2_000)).toEqual({
      ok: false,
      reason: 'ECONNREFUSED',
    });
  });
});
