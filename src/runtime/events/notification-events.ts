/**
 * Maps `codex app-server` notifications of one driven process to session events (pure): turn
 * started and completed, completed agent messages, MCP tool calls (with server and tool),
 * commands and file changes. Other notifications (deltas, token counts, startup) yield nothing.
 */
import type { ServerNotification } from '../codex/app-server-protocol.js';
import type { EventInput } from './session-event.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function opt<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

function errorText(value: unknown): string | undefined {
  if (isRecord(value)) return str(value.message);
  return str(value);
}

/** Longest part of a failed tool call's own answer an event keeps. */
const RESULT_TEXT_MAX = 300;

/**
 * Why a tool call failed when its server answered with an error result (`isError`) rather than
 * a protocol error: the answer's first text, shortened (a refusal's reason, e.g. `mmo_mesh`'s).
 */
function failedResultText(item: Record<string, unknown>): string | undefined {
  if (item.status !== 'failed' || !isRecord(item.result)) return undefined;
  const content = Array.isArray(item.result.content) ? item.result.content : [];
  const first = content.find((c): c is Record<string, unknown> => isRecord(c) && c.type === 'text');
  const text = first === undefined ? undefined : str(first.text);
  if (text === undefined || text === '') return undefined;
  return text.length > RESULT_TEXT_MAX ? `${text.slice(0, RESULT_TEXT_MAX)}…` : text;
}

export function eventsOfNotification(
  process: string,
  role: string,
  n: ServerNotification,
): EventInput[] {
  const p = n.params;
  const base = { process, role, ...opt('thread', str(p.threadId)) };
  const turn = isRecord(p.turn) ? p.turn : undefined;
  switch (n.method) {
    case 'turn/started':
      return [{ ...base, type: 'turn.started', ...opt('turn', str(turn?.id)) }];
    case 'turn/completed':
      return [
        {
          ...base,
          type: 'turn.completed',
          ...opt('turn', str(turn?.id)),
          ...opt('status', str(turn?.status)),
          ...opt('text', errorText(turn?.error)),
        },
      ];
    case 'item/started':
    case 'item/completed': {
      const item = isRecord(p.item) ? p.item : undefined;
      if (item === undefined) return [];
      const inTurn = { ...base, ...opt('turn', str(p.turnId)) };
      const done = n.method === 'item/completed';
      switch (item.type) {
        case 'agentMessage':
          return done ? [{ ...inTurn, type: 'message', ...opt('text', str(item.text)) }] : [];
        case 'mcpToolCall':
          return [
            {
              ...inTurn,
              type: done ? 'tool_call.completed' : 'tool_call.started',
              ...opt('server', str(item.server)),
              ...opt('tool', str(item.tool)),
              ...opt('status', str(item.status)),
              ...(done ? opt('text', errorText(item.error) ?? failedResultText(item)) : {}),
            },
          ];
        case 'commandExecution':
          return done
            ? [
                {
                  ...inTurn,
                  type: 'command',
                  ...opt('text', str(item.command)),
                  ...opt('status', str(item.status)),
                  ...(typeof item.exitCode === 'number' ? { exit_code: item.exitCode } : {}),
                },
              ]
            : [];
        case 'fileChange': {
          if (!done) return [];
          const changes = Array.isArray(item.changes) ? item.changes : [];
          const files = changes.flatMap((c) =>
            isRecord(c) && typeof c.path === 'string' ? [c.path] : [],
          );
          return [
            {
              ...inTurn,
              type: 'file_change',
              ...opt('text', files.join(', ')),
              ...opt('status', str(item.status)),
            },
          ];
        }
        default:
          return [];
      }
    }
    default:
      return [];
  }
}
