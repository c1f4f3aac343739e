/**
 * A Streamable HTTP MCP server of our own for tests (MCP SDK, stateless, 127.0.0.1 only) that
 * records the headers of every request it receives and offers one tool, `note`.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface HttpMcpServer {
  readonly url: string;
  /** Lower-cased headers of every request, in arrival order. */
  readonly requests: Record<string, string>[];
  readonly calls: string[];
  close(): Promise<void>;
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const requests: Record<string, string>[] = [];
  const calls: string[] = [];
  const http = createServer((req, res) => {
    requests.push(headersOf(req));
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const server = new McpServer({ name: 'http-recorder', version: '1.0.0' });
    server.registerTool(
      'note',
      { description: 'Records a note.', inputSchema: { text: z.string().optional() } },
      ({ text }) => {
        calls.push(text ?? '');
        return { content: [{ type: 'text', text: `noted: ${text ?? ''}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({});
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => {
          resolve();
        });
      }),
  };
}
