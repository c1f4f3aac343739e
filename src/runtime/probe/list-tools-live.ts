/**
 * Talks to a running Tool MCP server the way Codex 0.149 does: MCP `initialize` (client
 * `codex-mcp-client`, elicitation capability), `notifications/initialized`, then `tools/list`
 * following `nextCursor` to the end, all within the startup timeout. The server is started and
 * stopped by the gateway's upstream (`gateway/upstream.ts`), as in a session. Failures come back
 * as data; everything the server said is masked.
 */
import { performance } from 'node:perf_hooks';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';

import { countOf } from '../../foundation/diagnostics/count-words.js';
import { describeError } from '../../foundation/errors.js';
import { VERSION } from '../../foundation/version.js';
import { maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import {
  UpstreamStartError,
  clientTransport,
  openUpstream,
  type Upstream,
  type UpstreamTarget,
} from '../upstream/upstream.js';
import {
  MAX_TOOL_PAGES,
  isRecord,
  knownAnnotations,
  plainJson,
  toolSurfaceOf,
  type ToolSurface,
} from './tool-surface.js';

/** Where the server is: a resolved stdio command, or a URL with its headers. */
export type LiveTarget = UpstreamTarget;

export interface LiveOptions {
  readonly startupTimeoutMs: number;
  /** Credential values to mask in everything reported. */
  readonly secrets: readonly string[];
  /** Grace between SIGTERM and SIGKILL when stopping a stdio server. */
  readonly graceMs?: number;
}

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
}

export interface LiveSurface {
  readonly serverInfo: ServerInfo;
  readonly protocolVersion: string;
  /** In the order the server listed them; duplicates removed (first one kept). */
  readonly tools: readonly ToolSurface[];
  /** The same tools exactly as listed (plain JSON), for a lease. */
  readonly listed: readonly Record<string, unknown>[];
  /** The `serverInfo` and `capabilities` of the `initialize` answer, as plain JSON. */
  readonly serverInfoRaw: Record<string, unknown>;
  readonly capabilities: Record<string, unknown>;
  readonly instructions?: string;
  /** `resources/list`, `resources/templates/list` and `prompts/list` as listed, when offered. */
  readonly catalogs: ServerCatalogs;
  readonly duplicateTools: readonly string[];
  readonly timeToReadyMs: number;
}

/** The lists besides tools a server offers (absent: not offered, or the list failed). */
export interface ServerCatalogs {
  readonly resources?: readonly Record<string, unknown>[];
  readonly resourceTemplates?: readonly Record<string, unknown>[];
  readonly prompts?: readonly Record<string, unknown>[];
}

export type FailureKind = 'start-failed' | 'timeout' | 'protocol-error';

export interface LiveOutcome {
  readonly surface?: LiveSurface;
  readonly failure?: { readonly kind: FailureKind; readonly reason: string };
  /** The server's recent stderr (stdio only), masked. */
  readonly stderr: string;
  /** Stdout lines that were not JSON-RPC (stdio only): how many, and the first few, masked. */
  readonly noise: { readonly count: number; readonly lines: readonly string[] };
}

const looseText = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);

/** One `tools/list` entry as the probe reads it (the entry itself is kept as listed). */
const ToolEntry = z.looseObject({
  name: z.string(),
  title: looseText,
  description: looseText,
  inputSchema: z.record(z.string(), z.unknown()),
  annotations: z.record(z.string(), z.unknown()).nullish(),
});

/** A page of any list: its entries as objects, exactly as sent. */
function listPage(key: string) {
  return z.looseObject({
    [key]: z.array(z.record(z.string(), z.unknown())),
    nextCursor: looseText,
  });
}
const ListToolsPage = listPage('tools');

function timeoutAfter(ms: number, onTimeout: () => void): { cancel: () => void } {
  const timer = setTimeout(onTimeout, ms);
  return {
    cancel: () => {
      clearTimeout(timer);
    },
  };
}

/** Reason text for an HTTP-level failure, or undefined when the error is not one. */
function httpFailure(error: unknown): string | undefined {
  if (error instanceof StreamableHTTPError) {
    const status = error.code;
    if (status === 401 || status === 403) {
      return `the server answered HTTP ${status}; check the bearer token and headers (${error.message})`;
    }
    return status !== undefined && status > 0
      ? `the server answered HTTP ${status}: ${error.message}`
      : error.message;
  }
  if (error instanceof Error && error.name === 'UnauthorizedError') {
    return 'the server answered 401 Unauthorized; check the bearer token or headers';
  }
  if (error instanceof TypeError && /fetch failed/i.test(error.message)) {
    const cause = (error as { cause?: unknown }).cause;
    return `cannot connect (${cause === undefined ? error.message : describeError(cause)})`;
  }
  return undefined;
}

/** Every page of `tools/list`: the tools (first definition of a name) and the names repeated. */
async function listAllTools(
  client: Client,
  requestOptions: { readonly signal: AbortSignal; readonly timeout: number },
): Promise<{ tools: ToolSurface[]; listed: Record<string, unknown>[]; duplicates: string[] }> {
  const tools: ToolSurface[] = [];
  const listed: Record<string, unknown>[] = [];
  const duplicates: string[] = [];
  const seen = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= MAX_TOOL_PAGES) {
      throw new ProtocolFailure(`tools/list did not end after ${MAX_TOOL_PAGES} pages`);
    }
    const result = await client.request(
      { method: 'tools/list', ...(cursor !== undefined ? { params: { cursor } } : {}) },
      ListToolsPage,
      requestOptions,
    );
    for (const entry of result.tools as Record<string, unknown>[]) {
      const raw = ToolEntry.parse(entry);
      if (seen.has(raw.name)) {
        duplicates.push(raw.name);
        continue;
      }
      seen.add(raw.name);
      const definition = plainRecord(entry);
      listed.push(definition);
      const annotations = knownAnnotations(raw.annotations);
      tools.push(
        toolSurfaceOf({
          name: raw.name,
          title: raw.title,
          description: raw.description,
          inputSchema: raw.inputSchema,
          ...(annotations !== undefined ? { annotations } : {}),
          definition,
        }),
      );
    }
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined || cursor === '') break;
    if (cursors.has(cursor)) {
      throw new ProtocolFailure(`tools/list returned the cursor "${cursor}" twice`);
    }
    cursors.add(cursor);
  }
  return { tools, listed, duplicates };
}

/**
 * Every entry of one list method to its end, or undefined when the server answers it with an
 * error (a server that offers the capability but not this list).
 */
async function listEntries(
  client: Client,
  method: string,
  key: string,
  requestOptions: { readonly signal: AbortSignal; readonly timeout: number },
): Promise<Record<string, unknown>[] | undefined> {
  const schema = listPage(key);
  const out: Record<string, unknown>[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    let result: z.infer<typeof schema>;
    try {
      result = await client.request(
        { method, ...(cursor !== undefined ? { params: { cursor } } : {}) },
        schema,
        requestOptions,
      );
    } catch (error) {
      if (requestOptions.signal.aborted) throw error;
      return undefined;
    }
    out.push(...(result[key] as Record<string, unknown>[]).map(plainRecord));
    cursor = result.nextCursor as string | undefined;
    if (cursor === undefined || cursor === '' || cursors.has(cursor)) return out;
    cursors.add(cursor);
  }
  return out;
}

/** The resources, resource templates and prompts lists of the capabilities the server offers. */
async function listCatalogs(
  client: Client,
  requestOptions: { readonly signal: AbortSignal; readonly timeout: number },
): Promise<ServerCatalogs> {
  const capabilities = client.getServerCapabilities() ?? {};
  const out: {
    resources?: Record<string, unknown>[];
    resourceTemplates?: Record<string, unknown>[];
    prompts?: Record<string, unknown>[];
  } = {};
  if (capabilities.resources !== undefined) {
    const resources = await listEntries(client, 'resources/list', 'resources', requestOptions);
    if (resources !== undefined) out.resources = resources;
    const templates = await listEntries(
      client,
      'resources/templates/list',
      'resourceTemplates',
      requestOptions,
    );
    if (templates !== undefined) out.resourceTemplates = templates;
  }
  if (capabilities.prompts !== undefined) {
    const prompts = await listEntries(client, 'prompts/list', 'prompts', requestOptions);
    if (prompts !== undefined) out.prompts = prompts;
  }
  return out;
}

/** A value as plain JSON data, or {} when it is not an object. */
function plainRecord(value: unknown): Record<string, unknown> {
  const plain = plainJson(value);
  return isRecord(plain) ? plain : {};
}

/** Starts (stdio) or connects to (HTTP) the server, lists its tools, and stops it. */
export async function listToolsLive(
  target: LiveTarget,
  options: LiveOptions,
): Promise<LiveOutcome> {
  const mask = (text: string): string => maskSecrets(text, options.secrets);
  const started = performance.now();
  let upstream: Upstream;
  try {
    upstream = await openUpstream(target, {
      secrets: options.secrets,
      ...(options.graceMs !== undefined ? { graceMs: options.graceMs } : {}),
    });
  } catch (error) {
    const cause = error instanceof UpstreamStartError ? error.cause : error;
    return {
      failure: {
        kind: 'start-failed',
        reason: `cannot start ${target.transport === 'stdio' ? target.command : 'the server'}: ${mask(describeError(cause))}`,
      },
      stderr: '',
      noise: { count: 0, lines: [] },
    };
  }
  const stdio = upstream.stdio;
  const http = upstream.http;
  const client = new Client(
    { name: 'codex-mcp-client', title: 'Codex', version: VERSION },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  const abort = new AbortController();
  let timedOut = false;
  const timer = timeoutAfter(options.startupTimeoutMs, () => {
    timedOut = true;
    abort.abort(new Error('startup timeout'));
  });
  // the SDK's own per-request timer must not fire before ours
  const requestOptions = { signal: abort.signal, timeout: options.startupTimeoutMs + 60_000 };
  let surface: LiveSurface | undefined;
  let failure: LiveOutcome['failure'];
  try {
    await client.connect(clientTransport(upstream), requestOptions);
    const { tools, listed, duplicates } = await listAllTools(client, requestOptions);
    const catalogs = await listCatalogs(client, requestOptions);
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    surface = {
      serverInfo: {
        name: info?.name ?? '',
        version: info?.version ?? '',
        ...(info?.title !== undefined ? { title: info.title } : {}),
      },
      protocolVersion: upstream.revision() ?? stdio?.protocolVersion ?? http?.protocolVersion ?? '',
      tools,
      listed,
      serverInfoRaw: plainRecord(info),
      capabilities: plainRecord(client.getServerCapabilities()),
      ...(instructions !== undefined ? { instructions } : {}),
      catalogs,
      duplicateTools: duplicates,
      timeToReadyMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    failure = await classify(error);
  } finally {
    timer.cancel();
  }
  await stopServer();
  const noise = stdio
    ? { count: stdio.noiseCount, lines: stdio.noise.map((l) => mask(truncate(l, 200))) }
    : { count: 0, lines: [] };
  return {
    ...(surface !== undefined ? { surface } : {}),
    ...(failure !== undefined ? { failure } : {}),
    stderr: stdio ? mask(stdio.stderrText()) : '',
    noise,
  };

  async function classify(error: unknown): Promise<NonNullable<LiveOutcome['failure']>> {
    const seconds = options.startupTimeoutMs / 1000;
    if (timedOut) {
      if (stdio && stdio.noiseCount > 0 && stdio.messages === 0) {
        return {
          kind: 'protocol-error',
          reason: `the server wrote ${countOf(stdio.noiseCount, 'line')} to stdout that are not JSON-RPC and never answered initialize within ${seconds} s`,
        };
      }
      return {
        kind: 'timeout',
        reason: `the server was not ready (initialize and tools/list) within startup_timeout_sec = ${seconds}`,
      };
    }
    if (error instanceof ProtocolFailure)
      return { kind: 'protocol-error', reason: mask(error.message) };
    if (stdio) {
      if (stdio.spawnError) {
        return {
          kind: 'start-failed',
          reason: `cannot start ${target.transport === 'stdio' ? target.command : 'the server'}: ${mask(describeError(stdio.spawnError))}`,
        };
      }
      if (stdio.fatalProtocolError !== undefined) {
        return { kind: 'protocol-error', reason: stdio.fatalProtocolError };
      }
      if (stdio.exitedUnprompted) {
        await stdio.waitForExit(1000);
        return {
          kind: 'start-failed',
          reason: `the server process ended before it was ready: ${stdio.describeExit()}`,
        };
      }
    } else {
      const reason = httpFailure(error);
      if (reason !== undefined) return { kind: 'start-failed', reason: mask(reason) };
    }
    return {
      kind: 'protocol-error',
      reason: `the server broke the MCP protocol: ${mask(truncate(describeError(error), 500))}`,
    };
  }

  async function stopServer(): Promise<void> {
    // an HTTP server that failed is not asked to end a session it may never have begun
    if (http !== undefined && surface === undefined) await http.close().catch(() => undefined);
    else await upstream.stop();
  }
}

class ProtocolFailure extends Error {}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
