/**
 * The output forms of a probe (pure): the `--json` shape scripts rely on
 * (`{"ok","server","tools":[{"name","annotations",...}],"diagnostics":[...]}` plus server info,
 * protocol version, time to ready and drift detail) and the readable text summary.
 */
import { formatTable } from '../../foundation/text/text-table.js';
import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import { countOf } from '../../foundation/diagnostics/count-words.js';
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import type { ProbedTool } from './analyze-surface.js';
import type { ProbeResult } from './probe-server.js';
import type { ToolDrift } from './tool-drift.js';

function toolJson(tool: ProbedTool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    annotations: tool.annotations ?? null,
    input_schema: tool.inputSchema,
    enabled: tool.enabled,
    ...(tool.approvalMode !== undefined ? { approval_mode: tool.approvalMode } : {}),
    ...(tool.asksApproval !== undefined ? { asks_approval: tool.asksApproval } : {}),
    digest: tool.digests.digest,
    ...(tool.pin !== undefined ? { pin: tool.pin } : {}),
  };
}

export function driftJson(drift: readonly ToolDrift[]): Record<string, unknown>[] {
  return drift.map((d) => ({
    tool: d.tool,
    changes: d.changes.map((c) => ({
      part: c.part,
      summary: c.summary,
      ...(c.pinned !== undefined ? { pinned: c.pinned } : {}),
      ...(c.current !== undefined ? { current: c.current } : {}),
    })),
  }));
}

/** The `tool-mcp probe --json` document. `diagnostics` may add registry-level ones to the probe's. */
export function probeJson(
  result: ProbeResult,
  diagnostics: readonly Diagnostic[],
  ok: boolean,
): Record<string, unknown> {
  return {
    ok,
    server: result.server,
    transport: result.transport,
    launched: result.launched,
    ...(result.serverInfo !== undefined ? { server_info: result.serverInfo } : {}),
    ...(result.protocolVersion !== undefined ? { protocol_version: result.protocolVersion } : {}),
    ...(result.timeToReadyMs !== undefined ? { time_to_ready_ms: result.timeToReadyMs } : {}),
    tools: result.tools.map(toolJson),
    drift: driftJson(result.drift),
    server_drift: result.serverDrift.map((c) => ({
      part: c.part,
      summary: c.summary,
      ...(c.pinned !== undefined ? { pinned: c.pinned } : {}),
      ...(c.current !== undefined ? { current: c.current } : {}),
    })),
    ...(result.stderrTail.length > 0 ? { stderr_tail: result.stderrTail } : {}),
    diagnostics,
  };
}

/** Short words for the behaviour hints a tool sets to true. */
export function hintWords(annotations: Readonly<Record<string, unknown>> | undefined): string {
  if (annotations === undefined) return '(no annotations)';
  const words: string[] = [];
  if (annotations.readOnlyHint === true) words.push('read-only');
  if (annotations.destructiveHint === true) words.push('destructive');
  if (annotations.idempotentHint === true) words.push('idempotent');
  if (annotations.openWorldHint === true) words.push('open-world');
  const hints = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
  if (!hints.some((h) => typeof annotations[h] === 'boolean')) return '(no hints)';
  return words.length > 0 ? words.join(', ') : '-';
}

/**
 * The readable summary printed on stdout (diagnostics go to stderr separately); terminal-safe,
 * since the server reports its own name, version, title and tool names.
 */
export function probeText(result: ProbeResult): string {
  const head = terminalSafe(`${result.server} (${result.transport})`);
  if (result.serverInfo === undefined) {
    return `${head}: ${result.launched ? 'did not become ready' : 'not started'}\n`;
  }
  const info = result.serverInfo;
  const lines = [
    head,
    terminalSafe(
      `  server    ${info.name} ${info.version}${info.title !== undefined ? ` (${info.title})` : ''}`,
    ),
    terminalSafe(`  protocol  ${result.protocolVersion ?? '?'}`),
    `  ready in  ${String(result.timeToReadyMs ?? '?')} ms`,
    '',
    '',
  ];
  const enabled = result.tools.filter((t) => t.enabled).length;
  if (result.tools.length === 0) {
    lines.push('The server offers no tools.');
    return `${lines.join('\n')}\n${changeText(result)}`;
  }
  const rows = result.tools.map((t) => [
    t.name,
    t.enabled ? 'yes' : 'no',
    t.approvalMode ?? '-',
    t.asksApproval === undefined ? '-' : t.asksApproval ? 'yes' : 'no',
    t.pin ?? '-',
    hintWords(t.annotations),
  ]);
  const table = formatTable(['TOOL', 'ENABLED', 'APPROVAL', 'ASKS', 'PIN', 'HINTS'], rows);
  return `${lines.join('\n')}${table}\n${countOf(result.tools.length, 'tool')} offered, ${enabled} enabled\n${changeText(result)}`;
}

/** One line per field that changed since the pin: the server's own parts, then each tool's. */
function changeLines(result: Pick<ProbeResult, 'drift' | 'serverDrift'>): string[] {
  return [
    ...result.serverDrift.map((c) => c.summary),
    ...result.drift.flatMap((d) => d.changes.map((c) => `tool ${d.tool}: ${c.summary}`)),
  ].map((line) => terminalSafe(line));
}

function changeText(result: ProbeResult): string {
  const lines = changeLines(result);
  return lines.length === 0
    ? ''
    : `\nChanged since the pin:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
