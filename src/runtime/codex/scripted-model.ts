/**
 * A built-in scripted model: a local HTTP server speaking the subset of the OpenAI Responses API
 * that Codex uses (`POST /v1/responses`, answered as a `text/event-stream`). A script handler
 * decides each reply; every request is recorded with the tools it offers the model, which is how
 * `profile smoke` measures what a role really receives. Listens on 127.0.0.1 only.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';

import type { TomlTable } from '../../foundation/toml/parse-toml.js';

/** What the model is offered in one request. */
export interface OfferedTools {
  /**
   * Offered server name (namespace `mcp__<name>` without the prefix, as Codex wrote it: `a-b` is
   * offered as `a_b`; `serverOfNamespace` reads it back to a server ID) → tool names, sorted.
   */
  readonly mcp: Record<string, string[]>;
  /** Every other callable function, as `name` or `namespace.name` when namespaced, sorted. */
  readonly functions: string[];
  /** The `agent_type` values `spawn_agent` accepts (native roles plus Codex's built-ins), sorted. */
  readonly agentTypes: string[];
}

/** One recorded request from Codex. */
export interface ModelRequest {
  /** 0-based arrival order across all callers (root and sub-agents). */
  readonly index: number;
  /** The parsed JSON request body as Codex sent it. */
  readonly body: Record<string, unknown>;
  /**
   * Codex's base instructions: the request's `instructions` field (Codex 0.149) or, when the
   * request has none, its first developer message (Codex 0.171); `''` when neither exists.
   */
  readonly instructions: string;
  readonly offeredTools: OfferedTools;
  /** True when the input carries the output of an earlier tool call (a follow-up request). */
  readonly hasToolOutput: boolean;
  /** Lower-cased request headers (authorization and cookies removed). */
  readonly headers: Record<string, string>;
  /** Developer-role message texts in the input, in order (role instructions live here). */
  readonly developerTexts: string[];
  /** User-role message texts in the input, in order (the first one is the task or spawn message). */
  readonly userTexts: string[];
  /** `function_call_output` items of the input: the call id and the output text. */
  readonly toolOutputs: { readonly callId: string; readonly output: string }[];
  /**
   * Codex's thread id for this request (from `x-codex-turn-metadata`, header `thread-id`, or
   * `prompt_cache_key`): requests of one agent share it, a sub-agent has its own.
   */
  readonly threadId: string | undefined;
  /**
   * The parent's thread id when this request comes from a sub-agent (`spawn_agent`), from
   * `x-codex-turn-metadata` or header `x-codex-parent-thread-id`; `undefined` for a root agent.
   */
  readonly parentThreadId: string | undefined;
  /** The `agent_name` Codex reports in `x-codex-turn-metadata` (0.149 says `/root` for all). */
  readonly agentName: string | undefined;
}

export type ScriptedItem =
  | { readonly type: 'message'; readonly text: string }
  | {
      readonly type: 'function_call';
      readonly name: string;
      readonly arguments: Record<string, unknown>;
      readonly namespace?: string;
    }
  /** A call of a free-form tool (`apply_patch`, code mode's `exec`): its raw text input. */
  | { readonly type: 'custom_tool_call'; readonly name: string; readonly input: string }
  /** A search of deferred tools that Codex runs itself (`tool_search`, `execution: "client"`). */
  | { readonly type: 'tool_search_call'; readonly arguments: Record<string, unknown> };

export type ScriptHandler = (request: ModelRequest) => ScriptedItem[] | Promise<ScriptedItem[]>;

export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1` — the provider's `base_url`. */
  readonly baseUrl: string;
  /** Every request received so far, in arrival order. */
  readonly requests: ModelRequest[];
  /** Handler failures (the reply to such a request is an HTTP 500), for diagnosis. */
  readonly errors: string[];
  close(): Promise<void>;
}

/** The name of the provider table `scriptedProviderConfig` writes. */
export const SCRIPTED_PROVIDER_ID = 'codex_mmo_scripted';
export const SCRIPTED_MODEL_NAME = 'scripted-model';

/**
 * Configuration that points Codex at the scripted model: `model`, `model_provider` and the
 * provider table, to merge into a rendered `config.toml`. Retries are off so a failing script
 * surfaces at once instead of after Codex's backoff.
 */
export function scriptedProviderConfig(baseUrl: string): TomlTable {
  return {
    model: SCRIPTED_MODEL_NAME,
    model_provider: SCRIPTED_PROVIDER_ID,
    model_providers: {
      [SCRIPTED_PROVIDER_ID]: {
        name: 'codex-mmo scripted model',
        base_url: baseUrl,
        wire_api: 'responses',
        requires_openai_auth: false,
        request_max_retries: 0,
        stream_max_retries: 0,
        stream_idle_timeout_ms: 300_000,
      },
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Agent types a `spawn_agent` tool accepts: its `agent_type` enum, else roles listed in prose. */
function agentTypesOf(tool: Record<string, unknown>): string[] {
  const params = isRecord(tool.parameters) ? tool.parameters : undefined;
  const props = params && isRecord(params.properties) ? params.properties : undefined;
  const agentType = props && isRecord(props.agent_type) ? props.agent_type : undefined;
  if (agentType && Array.isArray(agentType.enum)) {
    return agentType.enum.filter((v): v is string => typeof v === 'string');
  }
  const text = [str(tool.description), agentType ? str(agentType.description) : undefined]
    .filter((t): t is string => t !== undefined)
    .join('\n');
  return parseRoleList(text);
}

/**
 * Codex 0.149 lists the available roles inside the `agent_type` description, one per line as
 * `name: {` followed by a JSON-like description block. Returns the names in order.
 */
export function parseRoleList(text: string): string[] {
  const marker = text.indexOf('Available roles:');
  if (marker < 0) return [];
  const names: string[] = [];
  for (const line of text.slice(marker).split('\n')) {
    const match = /^([A-Za-z0-9_-]+): \{\s*$/.exec(line);
    if (match?.[1] !== undefined) names.push(match[1]);
  }
  return names;
}

/** Extracts what a Responses request offers the model from its `tools` array. */
export function offeredToolsOf(body: Record<string, unknown>): OfferedTools {
  const mcp: Record<string, string[]> = {};
  const functions: string[] = [];
  const agentTypes = new Set<string>();
  const visit = (tool: Record<string, unknown>, namespace: string | undefined): void => {
    const name = str(tool.name) ?? str(tool.type) ?? '?';
    if (tool.type === 'namespace' && Array.isArray(tool.tools)) {
      const inner = tool.tools.filter(isRecord);
      if (name.startsWith('mcp__')) {
        const server = name.slice('mcp__'.length);
        const names = mcp[server] ?? (mcp[server] = []);
        for (const t of inner) names.push(str(t.name) ?? '?');
      } else {
        for (const t of inner) visit(t, name);
      }
      return;
    }
    functions.push(namespace === undefined ? name : `${namespace}.${name}`);
    if (name === 'spawn_agent') for (const a of agentTypesOf(tool)) agentTypes.add(a);
  };
  const tools = Array.isArray(body.tools) ? body.tools.filter(isRecord) : [];
  for (const tool of tools) visit(tool, undefined);
  for (const names of Object.values(mcp)) names.sort();
  return { mcp, functions: functions.sort(), agentTypes: [...agentTypes].sort() };
}

function messageTexts(input: readonly unknown[], role: string): string[] {
  const out: string[] = [];
  for (const item of input) {
    if (!isRecord(item) || item.type !== 'message' || item.role !== role) continue;
    const content = item.content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) {
      out.push(
        content
          .filter(isRecord)
          .map((c) => str(c.text) ?? '')
          .join(''),
      );
    }
  }
  return out;
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .filter(isRecord)
      .map((c) => str(c.text) ?? '')
      .join('');
  }
  if (isRecord(output)) return str(output.content) ?? JSON.stringify(output);
  return '';
}

function turnMetadata(header: string | undefined): Record<string, unknown> {
  if (header === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(header);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const SECRET_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** Builds the recorded form of one request body. */
export function describeRequest(
  index: number,
  body: Record<string, unknown>,
  rawHeaders: Readonly<Record<string, string | string[] | undefined>> = {},
): ModelRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawHeaders)) {
    if (v === undefined || SECRET_HEADERS.has(k.toLowerCase())) continue;
    headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  const input = Array.isArray(body.input) ? body.input : [];
  const toolOutputs = input
    .filter(isRecord)
    .filter((i) => i.type === 'function_call_output' || i.type === 'custom_tool_call_output')
    .map((i) => ({ callId: str(i.call_id) ?? '', output: outputText(i.output) }));
  const metadata = turnMetadata(headers['x-codex-turn-metadata']);
  const developerTexts = messageTexts(input, 'developer');
  return {
    index,
    body,
    instructions: str(body.instructions) ?? developerTexts[0] ?? '',
    offeredTools: offeredToolsOf(body),
    hasToolOutput: toolOutputs.length > 0,
    headers,
    developerTexts,
    userTexts: messageTexts(input, 'user'),
    toolOutputs,
    threadId: str(metadata.thread_id) ?? headers['thread-id'] ?? str(body.prompt_cache_key),
    parentThreadId: str(metadata.parent_thread_id) ?? headers['x-codex-parent-thread-id'],
    agentName: str(metadata.agent_name),
  };
}

const decoders: Record<string, (b: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  const decode = Object.hasOwn(decoders, encoding) ? decoders[encoding] : undefined;
  if (decode === undefined) throw new Error(`unsupported content-encoding ${encoding}`);
  return decode(raw);
}

/** The SSE event sequence Codex expects for one scripted reply. */
export function responseEvents(responseId: string, items: readonly ScriptedItem[]): object[] {
  const events: object[] = [{ type: 'response.created', response: { id: responseId } }];
  items.forEach((item, k) => {
    const id = `${responseId}_${k}`;
    const done =
      item.type === 'message'
        ? {
            type: 'message',
            role: 'assistant',
            id: `msg_${id}`,
            status: 'completed',
            content: [{ type: 'output_text', text: item.text, annotations: [] }],
          }
        : item.type === 'custom_tool_call'
          ? {
              type: 'custom_tool_call',
              id: `ctc_${id}`,
              call_id: `call_${id}`,
              name: item.name,
              input: item.input,
              status: 'completed',
            }
          : item.type === 'tool_search_call'
            ? {
                type: 'tool_search_call',
                id: `tsc_${id}`,
                call_id: `call_${id}`,
                execution: 'client',
                arguments: item.arguments,
                status: 'completed',
              }
            : {
                type: 'function_call',
                id: `fc_${id}`,
                call_id: `call_${id}`,
                name: item.name,
                arguments: JSON.stringify(item.arguments),
                status: 'completed',
                ...(item.namespace !== undefined ? { namespace: item.namespace } : {}),
              };
    events.push({ type: 'response.output_item.done', output_index: k, item: done });
  });
  events.push({
    type: 'response.completed',
    response: {
      id: responseId,
      usage: {
        input_tokens: 0,
        input_tokens_details: null,
        output_tokens: 0,
        output_tokens_details: null,
        total_tokens: 0,
      },
    },
  });
  return events;
}

function sendSse(res: ServerResponse, events: readonly object[]): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'close',
  });
  for (const event of events) {
    const type = (event as { type: string }).type;
    res.write(`event: ${type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  res.end(JSON.stringify(value));
}

/**
 * Starts the scripted model on 127.0.0.1 (a free port unless `options.port` names one). Each `POST …/responses` is recorded and
 * answered with the items `handler` returns; a handler that throws gets an HTTP 500 and its
 * message in `errors`. `GET …/models` answers with the one scripted model.
 */
export async function startScriptedModel(
  handler: ScriptHandler,
  options: { readonly port?: number } = {},
): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const errors: string[] = [];
  let counter = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      try {
        if (req.method === 'GET' && path.endsWith('/models')) {
          sendJson(res, 200, {
            object: 'list',
            data: [{ id: SCRIPTED_MODEL_NAME, object: 'model', owned_by: 'codex-mmo' }],
            models: [],
          });
          return;
        }
        if (req.method !== 'POST' || !path.endsWith('/responses')) {
          sendJson(res, 404, { error: { message: `no route ${req.method ?? ''} ${path}` } });
          return;
        }
        const raw = await readBody(req);
        const parsed: unknown = JSON.parse(raw.toString('utf8'));
        if (!isRecord(parsed)) throw new Error('request body is not a JSON object');
        const request = describeRequest(counter++, parsed, req.headers);
        requests.push(request);
        const items = await handler(request);
        sendSse(res, responseEvents(`resp_${request.index}`, items));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        errors.push(message);
        if (!res.headersSent) sendJson(res, 500, { error: { message } });
        else res.end();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
