/**
 * Session events of a process codex-mmo does not drive (the root of an interactive `run`), read
 * from Codex's rollout files in its private home (`sessions/**\/rollout-*.jsonl`): turns started
 * and completed, assistant messages, MCP tool calls (server and tool) and shell commands. The
 * mapping of one rollout line is pure (`eventsOfRolloutLine`); text is masked by the caller.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

import type { SessionRecord } from '../session/session-record.js';
import type { SessionEvent } from './session-event.js';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `mcp__server__tool` or namespace `mcp__server` with name `tool`. */
function mcpTarget(payload: Record<string, unknown>): { server: string; tool: string } | undefined {
  const namespace = str(payload.namespace);
  const name = str(payload.name) ?? '';
  if (namespace?.startsWith('mcp__') === true) return { server: namespace.slice(5), tool: name };
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match?.[1] !== undefined && match[2] !== undefined
    ? { server: match[1], tool: match[2] }
    : undefined;
}

type Base = Pick<SessionEvent, 'time' | 'session' | 'process' | 'role'>;

export function eventsOfRolloutLine(base: Base, line: string): SessionEvent[] {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return [];
  }
  if (!isRecord(entry) || !isRecord(entry.payload)) return [];
  const p = entry.payload;
  const at = { ...base, time: str(entry.timestamp) ?? base.time };
  const turn = str(p.turn_id);
  const inTurn = turn !== undefined ? { ...at, turn } : at;
  if (entry.type === 'event_msg') {
    switch (p.type) {
      case 'task_started':
        return [{ ...inTurn, type: 'turn.started' }];
      case 'task_complete':
        return [{ ...inTurn, type: 'turn.completed', status: 'completed' }];
      case 'turn_aborted':
        return [{ ...inTurn, type: 'turn.completed', status: 'interrupted' }];
      case 'mcp_tool_call_end': {
        const invocation = isRecord(p.invocation) ? p.invocation : {};
        const server = str(invocation.server);
        const tool = str(invocation.tool);
        const result = isRecord(p.result) ? p.result : {};
        return [
          {
            ...at,
            type: 'tool_call.completed',
            ...(server !== undefined ? { server } : {}),
            ...(tool !== undefined ? { tool } : {}),
            status: 'Err' in result ? 'failed' : 'completed',
          },
        ];
      }
      default:
        return [];
    }
  }
  if (entry.type !== 'response_item') return [];
  if (p.type === 'message' && p.role === 'assistant' && Array.isArray(p.content)) {
    const text = p.content
      .flatMap((c) => (isRecord(c) && typeof c.text === 'string' ? [c.text] : []))
      .join('\n');
    return [{ ...at, type: 'message', text }];
  }
  if (p.type === 'function_call') {
    const mcp = mcpTarget(p);
    if (mcp !== undefined) return [{ ...at, type: 'tool_call.started', ...mcp }];
    if (p.name === 'exec_command' || p.name === 'shell') {
      let cmd: string | undefined;
      try {
        const args: unknown = JSON.parse(str(p.arguments) ?? '{}');
        if (isRecord(args)) {
          cmd = Array.isArray(args.command) ? args.command.join(' ') : str(args.cmd);
        }
      } catch {
        cmd = undefined;
      }
      return [{ ...at, type: 'command', ...(cmd !== undefined ? { text: cmd } : {}) }];
    }
  }
  return [];
}

async function rolloutFiles(home: string): Promise<string[]> {
  const root = join(home, 'sessions');
  try {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && /^rollout-.*\.jsonl$/.test(e.name))
      .map((e) => join(e.parentPath, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** The events of the session root's rollouts (an interactive `run`). */
export async function rootRolloutEvents(record: SessionRecord): Promise<SessionEvent[]> {
  const root = record.processes.find((p) => p.kind === 'root');
  if (root === undefined) return [];
  const base: Base = { time: record.started, session: record.id, process: 'root', role: root.role };
  const out: SessionEvent[] = [];
  for (const file of await rolloutFiles(root.home)) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (line.trim() !== '') out.push(...eventsOfRolloutLine(base, line));
    }
  }
  return out;
}
