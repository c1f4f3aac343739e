/**
 * What the model wire reads from one Responses API request Codex sends (pure): the thread it
 * belongs to, its parent thread when it comes from a sub-agent, and its developer-message texts.
 * Both supported request shapes are read the same way: Codex 0.149 puts the base prompt in
 * `instructions`, 0.171 sends no `instructions` and makes the base prompt the first developer
 * message; role instructions are a developer message in both.
 */

/** Identity of one request, from its headers and body. */
export interface WireIdentity {
  /** Header `thread-id`, else `x-codex-turn-metadata.thread_id`. */
  readonly threadId: string | undefined;
  /** Header `x-codex-parent-thread-id`, else `x-codex-turn-metadata.parent_thread_id`. */
  readonly parentThreadId: string | undefined;
  /** Header `x-openai-subagent` (`collab_spawn` for a spawned sub-agent). */
  readonly subagent: string | undefined;
  /** Every text part of every developer message of `input`, in order. */
  readonly developerTexts: readonly string[];
}

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text === '' ? undefined : text;
}

function turnMetadata(headers: Headers): Record<string, unknown> {
  const text = header(headers, 'x-codex-turn-metadata');
  if (text === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** The text parts of the developer messages of a request body's `input`. */
export function developerTexts(body: Record<string, unknown>): string[] {
  const input = Array.isArray(body.input) ? body.input : [];
  const out: string[] = [];
  for (const item of input) {
    if (!isRecord(item) || item.role !== 'developer') continue;
    if (item.type !== undefined && item.type !== 'message') continue;
    const content = item.content;
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (isRecord(part) && typeof part.text === 'string') out.push(part.text);
      }
    }
  }
  return out;
}

/** Reads the identity of a request (header names are lower-case, as node:http gives them). */
export function wireIdentity(headers: Headers, body: Record<string, unknown>): WireIdentity {
  const metadata = turnMetadata(headers);
  return {
    threadId: header(headers, 'thread-id') ?? str(metadata.thread_id),
    parentThreadId: header(headers, 'x-codex-parent-thread-id') ?? str(metadata.parent_thread_id),
    subagent: header(headers, 'x-openai-subagent'),
    developerTexts: developerTexts(body),
  };
}
