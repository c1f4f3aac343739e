/**
 * Validates one registry fragment (pure): decodes and parses it, checks `schema_version = 8` and
 * the top-level keys, and validates every `[tool_mcp_servers.ID]` entry, collecting every problem
 * with its position. A fragment that cannot be parsed still names the IDs it appears to define, so
 * that they fail closed instead of silently keeping an earlier definition.
 */
import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { didYouMean } from '../../foundation/diagnostics/did-you-mean.js';
import type { KeyPositions } from '../../foundation/toml/key-positions.js';
import { parseTomlBytes } from '../../foundation/toml/parse-toml.js';
import { DiagnosticSink, describeType, isTable, showKey } from './diagnostic-sink.js';
import {
  REGISTRY_SCHEMA_VERSION,
  type FragmentSource,
  type ServerDefinition,
  type Transport,
} from './types.js';
import { validateServer } from './validate-server.js';

const TOP_LEVEL_KEYS = ['schema_version', 'tool_mcp_servers'] as const;

/** One `[tool_mcp_servers.ID]` entry as a fragment defines it. */
export interface FragmentServer {
  readonly id: string;
  /** True when the entry (and the fragment's schema version) is valid. */
  readonly ok: boolean;
  readonly transport?: Transport;
  /** The normalised definition; present exactly when `ok`. */
  readonly definition?: ServerDefinition;
  /** Position of the entry's table (1:1 when unknown). */
  readonly line: number;
  readonly column: number;
}

export interface FragmentResult {
  readonly file: string;
  /** Whether the bytes decoded and parsed as TOML. */
  readonly parsed: boolean;
  /** The entries in the order written. */
  readonly servers: readonly FragmentServer[];
  /** Every problem, ordered by line and column. */
  readonly diagnostics: readonly Diagnostic[];
  /** Key positions of the parsed document (absent when it did not parse). */
  readonly positions?: KeyPositions;
}

/** Validates one fragment; never throws for bad input. */
export function validateFragment(source: FragmentSource): FragmentResult {
  const { file } = source;
  const parsed = parseTomlBytes(source.bytes, file);
  if (!parsed.ok) {
    return {
      file,
      parsed: false,
      servers: idsOfUnparsedFragment(source.bytes).map((id) => ({
        id: id.id,
        ok: false,
        line: id.line,
        column: id.column,
      })),
      diagnostics: [...parsed.diagnostics],
    };
  }
  const { value: document, positions } = parsed;
  const sink = new DiagnosticSink(file, positions);

  let schemaOk = false;
  if (!Object.hasOwn(document, 'schema_version')) {
    sink.report(
      'schema-version-missing',
      ['schema_version'],
      Object.keys(document).length === 0
        ? `the fragment is empty; start it with schema_version = ${REGISTRY_SCHEMA_VERSION} and add [tool_mcp_servers.ID] tables, or delete the file`
        : `schema_version is missing; add schema_version = ${REGISTRY_SCHEMA_VERSION} as the first line of the fragment`,
    );
  } else if (document.schema_version !== REGISTRY_SCHEMA_VERSION) {
    sink.report(
      'schema-version-unsupported',
      ['schema_version'],
      `this version of codex-mmo reads registry schema version ${REGISTRY_SCHEMA_VERSION} only, and schema_version here is ${describeSchemaVersion(document.schema_version)}; write schema_version = ${REGISTRY_SCHEMA_VERSION} and follow the version-${REGISTRY_SCHEMA_VERSION} field rules`,
    );
  } else {
    schemaOk = true;
  }

  for (const key of Object.keys(document)) {
    if ((TOP_LEVEL_KEYS as readonly string[]).includes(key)) continue;
    sink.report('unknown-top-level-key', [key], topLevelMessage(key));
  }

  const servers: FragmentServer[] = [];
  if (Object.hasOwn(document, 'tool_mcp_servers')) {
    const table = document.tool_mcp_servers;
    if (!isTable(table)) {
      sink.report(
        'server-not-table',
        ['tool_mcp_servers'],
        `tool_mcp_servers must be a table of definitions ([tool_mcp_servers.ID] sections), not ${describeType(table)}`,
      );
    } else {
      for (const [id, entry] of Object.entries(table)) {
        const result = validateServer(id, entry, sink);
        const at = positions.lookup(['tool_mcp_servers', id]) ?? { line: 1, column: 1 };
        const ok = schemaOk && result.definition !== undefined;
        const server: {
          id: string;
          ok: boolean;
          transport?: Transport;
          definition?: ServerDefinition;
          line: number;
          column: number;
        } = { id, ok, line: at.line, column: at.column };
        if (result.transport !== undefined) server.transport = result.transport;
        if (ok) server.definition = result.definition;
        servers.push(server);
      }
    }
  }

  return {
    file,
    parsed: true,
    servers,
    diagnostics: byPosition(sink.diagnostics),
    positions,
  };
}

function describeSchemaVersion(value: unknown): string {
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1e6) {
    return String(value);
  }
  return describeType(value);
}

function topLevelMessage(key: string): string {
  if (key === 'mcp_servers') {
    return "registry fragments define servers as [tool_mcp_servers.ID], not Codex's [mcp_servers.ID]; rename the tables";
  }
  if (key === 'agents' || key === 'profile' || key === 'root') {
    return `${key} belongs in a profile pack (profile.toml), not in a registry fragment; move it there`;
  }
  return `unknown top-level key ${showKey(key)}${didYouMean(key, TOP_LEVEL_KEYS)}; a fragment holds only schema_version and [tool_mcp_servers.ID] tables`;
}

/** Stable sort by line, then column (diagnostics of one file). */
function byPosition(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics
    .map((d, index) => ({ d, index }))
    .sort(
      (a, b) =>
        (a.d.line ?? 0) - (b.d.line ?? 0) ||
        (a.d.column ?? 0) - (b.d.column ?? 0) ||
        a.index - b.index,
    )
    .map((x) => x.d);
}

const HEADER_ID =
  /^[ \t]*\[[ \t]*tool_mcp_servers[ \t]*\.[ \t]*(?:([A-Za-z0-9_-]+)|"([^"\\]*)"|'([^']*)')/;
const DOTTED_ID =
  /^[ \t]*tool_mcp_servers[ \t]*\.[ \t]*(?:([A-Za-z0-9_-]+)|"([^"\\]*)"|'([^']*)')[ \t]*[.=]/;

/**
 * Best-effort list of server IDs in a fragment that does not parse: `[tool_mcp_servers.ID…]`
 * headers and top-level `tool_mcp_servers.ID… =` keys, with their positions.
 */
function idsOfUnparsedFragment(bytes: Uint8Array): { id: string; line: number; column: number }[] {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const found = new Map<string, { id: string; line: number; column: number }>();
  let line = 0;
  let inTable = false;
  for (const raw of text.split('\n')) {
    line++;
    if (/^[ \t]*\[/.test(raw)) inTable = true;
    const match = HEADER_ID.exec(raw) ?? (inTable ? null : DOTTED_ID.exec(raw));
    if (!match) continue;
    const id = match[1] ?? match[2] ?? match[3];
    if (id === undefined || found.has(id)) continue;
    found.set(id, { id, line, column: match.index + match[0].lastIndexOf(id) + 1 });
  }
  return [...found.values()];
}
