/**
 * The one diagnostic shape every part of codex-mmo reports user-facing problems in.
 * Expected user errors are data, not exceptions: functions return arrays of these, and the CLI
 * prints them as `file:line:col: error[code] path: message` or as JSON.
 */
import { terminalSafe } from '../text/terminal-safe.js';

export type Severity = 'error' | 'warning' | 'info';

export interface Diagnostic {
  readonly severity: Severity;
  /** Stable, kebab-case identifier such as `oauth-field` or `missing-env-var`. */
  readonly code: string;
  /** What is wrong and what to do instead. Never contains a credential value. */
  readonly message: string;
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** Dotted key path inside the file, e.g. `tool_mcp_servers.firecrawl.url`. */
  readonly path?: string;
  /** The Tool MCP server the diagnostic is about, when there is one. */
  readonly server?: string;
}

export interface DiagnosticInit {
  severity?: Severity | undefined;
  code: string;
  message: string;
  file?: string | undefined;
  line?: number | undefined;
  column?: number | undefined;
  path?: string | undefined;
  server?: string | undefined;
}

/** Builds a diagnostic, dropping absent parts (so JSON output omits them). Severity defaults to error. */
export function diagnostic(init: DiagnosticInit): Diagnostic {
  const out: {
    severity: Severity;
    code: string;
    message: string;
    file?: string;
    line?: number;
    column?: number;
    path?: string;
    server?: string;
  } = { severity: init.severity ?? 'error', code: init.code, message: init.message };
  if (init.file !== undefined) out.file = init.file;
  if (init.line !== undefined) out.line = init.line;
  if (init.column !== undefined) out.column = init.column;
  if (init.path !== undefined && init.path !== '') out.path = init.path;
  if (init.server !== undefined) out.server = init.server;
  return out;
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

/**
 * A message as text for a person: each line terminal-safe, and every line after the first (a
 * server's stderr tail) indented, so that no quoted text starts a line of its own.
 */
function messageText(message: string): string {
  return message
    .split('\n')
    .map((line, i) => {
      const safe = terminalSafe(line);
      return i === 0 || safe.startsWith(' ') ? safe : `  ${safe}`;
    })
    .join('\n');
}

/**
 * `file:line:col: error[code] path: message`, leaving out the parts a diagnostic lacks; every
 * part terminal-safe (the JSON form keeps the exact text).
 */
export function formatDiagnostic(d: Diagnostic): string {
  let location = '';
  if (d.file !== undefined) {
    location = terminalSafe(d.file);
    if (d.line !== undefined) {
      location += `:${d.line}`;
      if (d.column !== undefined) location += `:${d.column}`;
    }
    location += ': ';
  }
  const path = d.path !== undefined ? `${terminalSafe(d.path)}: ` : '';
  return `${location}${d.severity}[${terminalSafe(d.code)}] ${path}${messageText(d.message)}`;
}

const severityRank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Stable order for output: by file, line, column, then severity and code. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    const fa = a.file ?? '';
    const fb = b.file ?? '';
    if (fa !== fb) return fa < fb ? -1 : 1;
    const la = a.line ?? 0;
    const lb = b.line ?? 0;
    if (la !== lb) return la - lb;
    const ca = a.column ?? 0;
    const cb = b.column ?? 0;
    if (ca !== cb) return ca - cb;
    if (a.severity !== b.severity) return severityRank[a.severity] - severityRank[b.severity];
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}

/** Counts for summaries such as "2 errors, 1 warning". */
export function summarize(diagnostics: readonly Diagnostic[]): {
  errors: number;
  warnings: number;
  infos: number;
} {
  let errors = 0;
  let warnings = 0;
  let infos = 0;
  for (const d of diagnostics) {
    if (d.severity === 'error') errors++;
    else if (d.severity === 'warning') warnings++;
    else infos++;
  }
  return { errors, warnings, infos };
}
