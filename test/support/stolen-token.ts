/**
 * A gateway token used by someone other than the Codex process it was given to: the gateway's
 * loopback URL read from a session's rendered Codex homes, and an MCP `initialize` sent to it
 * with the token from this (test) process, as a shell that read Codex's /proc would; and an MCP
 * SDK client connected with a token, standing where Codex stands.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** The gateway URL in the first rendered home of the session under `sessionsDir`. */
export async function gatewayUrl(sessionsDir: string): Promise<string | undefined> {
  for (const id of await readdir(sessionsDir).catch(() => [])) {
    const homes = join(sessionsDir, id, 'homes');
    for (const home of await readdir(homes).catch(() => [])) {
      const text = await readFile(join(homes, home, 'config.toml'), 'utf8').catch(() => '');
      const url = /^url = "(http:\/\/127\.0\.0\.1:\d+\/mcp)"$/m.exec(text)?.[1];
      if (url !== undefined) return url;
    }
  }
  return undefined;
}

export interface HttpAttempt {
  readonly status: number;
  readonly body: string;
}

/** An MCP `initialize` to `url` with `token` as bearer. */
export async function tryToken(url: string, token: string): Promise<HttpAttempt> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'thief', version: '1' },
      },
    }),
  });
  return { status: response.status, body: await response.text() };
}

/** An MCP SDK client connected to the gateway at `url` with `token` as bearer. */
export async function connectWithToken(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'codex-stand-in', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}
