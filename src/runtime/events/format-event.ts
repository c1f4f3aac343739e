/**
 * Renders a session event as one line of text for `session logs` and `exec`'s progress output.
 * The line is terminal-safe: text a model, a server or a file wrote (messages, commands, tool and
 * server names, errors) is shown with its control characters escaped, so it cannot forge a line
 * or send a terminal sequence.
 */
import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import type { SessionEvent } from './session-event.js';

function tool(e: SessionEvent): string {
  return `${e.server ?? '?'}.${e.tool ?? '?'}`;
}

/**
 * What a refused call was: a tool call, or (for a request that named no tool, such as a resource
 * read or an HTTP request the front refused) the request of its method to its server.
 */
function refusedWhat(e: SessionEvent): string {
  if (e.tool !== undefined && e.tool !== '') return `tool call ${tool(e)}`;
  const method = e.method !== undefined && e.method !== '' ? ` ${e.method}` : '';
  return `request${method} to ${e.server !== undefined && e.server !== '' ? e.server : 'the gateway'}`;
}

export function describeEvent(e: SessionEvent): string {
  switch (e.type) {
    case 'process.started':
      return 'started';
    case 'process.ended':
      return `ended: ${e.status ?? 'ended'}${e.exit_code !== undefined ? ` (exit code ${e.exit_code})` : ''}${e.text !== undefined ? ` — ${e.text}` : ''}`;
    case 'turn.started':
      return 'turn started';
    case 'turn.completed':
      return `turn ${e.status ?? 'completed'}${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'message':
      return `message: ${e.text ?? ''}`;
    case 'tool_call.started':
      return `tool call ${tool(e)}`;
    case 'tool_call.completed':
      return `tool call ${tool(e)} ${e.status ?? 'done'}${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'tool_call.refused':
      return `${refusedWhat(e)} refused${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'command':
      return `command \`${e.text ?? ''}\`${e.exit_code !== undefined ? ` exited ${e.exit_code}` : ` ${e.status ?? ''}`}`;
    case 'file_change':
      return `file change ${e.text ?? ''} ${e.status ?? ''}`.trimEnd();
    case 'approval.requested': {
      const what =
        e.kind === 'mcp_tool_call' ? `tool ${tool(e)}` : `${e.kind ?? ''} ${e.tool ?? ''}`;
      return `approval ${e.approval ?? '?'} requested: ${what.trim()}${e.text !== undefined ? ` ${e.text}` : ''}`;
    }
    case 'approval.answered':
      return `approval ${e.approval ?? '?'} ${e.decision === 'approve' ? 'approved' : 'denied'} by ${e.by ?? '?'} (${e.how ?? '?'})${e.text !== undefined ? `: ${e.text}` : ''}`;
    case 'server.failed':
      return `server ${e.server ?? '?'} ${e.status === 'ended' ? 'ended' : 'failed to start'}: ${e.text ?? ''}`;
    case 'session.ending':
      return `session ending${e.text !== undefined ? `: ${e.text}` : ''}; later requests are refused (session-ended)`;
    case 'listener.flood':
      return `listener ${e.listener ?? '?'} flooded: ${String(e.count ?? '?')} connections waiting to authenticate${e.text !== undefined ? ` — ${e.text}` : ''}`;
    case 'budget.refused':
      return `budget refused ${e.kind === 'server_processes' || e.server !== undefined ? 'a server start' : 'a spawn'}: ${e.text ?? ''}`;
    case 'approval.refused':
      return `approval socket refused a caller${e.approval !== undefined ? ` answering ${e.approval}` : ''}: ${e.text ?? ''}`;
  }
}

/** `HH:MM:SS process (role) description`, one terminal-safe line. */
export function formatEvent(e: SessionEvent): string {
  const time = e.time.length >= 19 ? e.time.slice(11, 19) : e.time;
  const who = e.process === 'root' ? `root (${e.role})` : `${e.process} (${e.role})`;
  return terminalSafe(`${time} ${who} ${describeEvent(e)}`);
}
