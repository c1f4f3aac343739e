/**
 * `codex-mmo tool-mcp show ID [--json]`: one server's definition as the registry holds it, where
 * it came from (the fragment that won and those it replaced) and its readiness. Variables are
 * reported as present (and from where) or missing; values are never printed. Nothing is launched.
 */
import { basename } from 'node:path';

import {
  configFiles,
  hasErrors,
  loadCredentials,
  loadRegistry,
  maskSecrets,
  type RegistryEntry,
  type ServerDefinition,
} from '../../index.js';
import {
  knownCredentials,
  fragmentCredentialLiterals,
  checkReadiness,
  type Readiness,
  referencedEnvVars,
  diagnosticsAffecting,
} from '../../config/registry/index.js';
import { maskDeep } from '../../foundation/diagnostics/index.js';
import { formatKeyPath } from '../../foundation/toml/index.js';
import {
  parseCommand,
  printDiagnostics,
  printHelp,
  printJson,
  skipOptimisingCompilers,
} from '../common.js';
import { EXIT_FAILURE, EXIT_OK, type CliIo } from '../io.js';
import { serverOrReport } from './tool-mcp-shared.js';

const USAGE = `Usage: codex-mmo tool-mcp show ID [--json]

Show one Tool MCP server: its definition as the registry holds it, the fragment that defines it
(and the earlier fragments it replaced), and its readiness: the executable its command resolves
to, its working directory, and whether each referenced environment variable is present and where
from (environment or credentials.env). Values are never printed. Nothing is launched.`;

/** A TOML key: bare when it can be, quoted otherwise. */
function tomlKey(key: string): string {
  return formatKeyPath([key]);
}

function tomlValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  return JSON.stringify(value);
}

/** Scalar and array keys first, in the order operators write them; then sub-tables. */
const KEY_ORDER = [
  'transport',
  'command',
  'args',
  'cwd',
  'env_vars',
  'url',
  'bearer_token_env_var',
  'enabled_tools',
  'default_tools_approval_mode',
  'startup_timeout_sec',
  'tool_timeout_sec',
  'supports_parallel_tool_calls',
  'shared',
];

/** The definition as a TOML fragment (`[tool_mcp_servers.ID]` and its sub-tables). */
export function definitionToml(definition: ServerDefinition): string {
  const table = definition as unknown as Record<string, unknown>;
  const header = `tool_mcp_servers.${tomlKey(definition.id)}`;
  const lines = [`[${header}]`];
  const keys = Object.keys(table).filter((k) => k !== 'id');
  const scalars = keys.filter((k) => {
    const v = table[k];
    return typeof v !== 'object' || Array.isArray(v);
  });
  scalars.sort((a, b) => {
    const ia = KEY_ORDER.indexOf(a);
    const ib = KEY_ORDER.indexOf(b);
    return (ia === -1 ? KEY_ORDER.length : ia) - (ib === -1 ? KEY_ORDER.length : ib);
  });
  for (const k of scalars) lines.push(`${tomlKey(k)} = ${tomlValue(table[k])}`);
  for (const k of keys) {
    const v = table[k];
    if (typeof v !== 'object' || v === null || Array.isArray(v)) continue;
    if (k === 'tools') {
      for (const [tool, override] of Object.entries(v as Record<string, unknown>)) {
        lines.push('', `[${header}.tools.${tomlKey(tool)}]`);
        for (const [ok, ov] of Object.entries(override as Record<string, unknown>)) {
          lines.push(`${tomlKey(ok)} = ${tomlValue(ov)}`);
        }
      }
      continue;
    }
    lines.push('', `[${header}.${tomlKey(k)}]`);
    for (const [sk, sv] of Object.entries(v as Record<string, unknown>)) {
      lines.push(`${tomlKey(sk)} = ${tomlValue(sv)}`);
    }
  }
  return lines.join('\n') + '\n';
}

function location(entry: RegistryEntry): string {
  if (entry.line === undefined) return entry.file;
  return `${entry.file}:${entry.line}${entry.column !== undefined ? `:${entry.column}` : ''}`;
}

function readinessText(readiness: Readiness): string {
  const lines = [`Readiness: ${readiness.ok ? 'ready' : 'NOT READY'}`];
  const rows: [string, string][] = [];
  if (readiness.command) {
    rows.push([
      'command',
      readiness.command.resolved !== undefined
        ? `${readiness.command.name} -> ${readiness.command.resolved}`
        : `${readiness.command.name} -> NOT FOUND`,
    ]);
  }
  if (readiness.cwd) {
    rows.push(['cwd', `${readiness.cwd.path} (${readiness.cwd.exists ? 'exists' : 'MISSING'})`]);
  }
  for (const v of readiness.variables) {
    rows.push([v.name, v.present ? `present (${v.origin ?? 'environment'})` : 'MISSING']);
  }
  if (rows.length === 0) rows.push(['', 'nothing to check']);
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) lines.push(`  ${k.padEnd(width)}  ${v}`.trimEnd());
  return lines.join('\n') + '\n';
}

function readinessJson(readiness: Readiness): Record<string, unknown> {
  return {
    ok: readiness.ok,
    ...(readiness.command ? { command: readiness.command } : {}),
    ...(readiness.cwd ? { cwd: readiness.cwd } : {}),
    variables: readiness.variables,
  };
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const cmd = parseCommand(args, io, {}, { min: 1, max: 1, names: ['ID'] });
  if (cmd.help) return printHelp(io, USAGE);
  skipOptimisingCompilers();
  const id = cmd.positionals[0] ?? '';
  const registry = await loadRegistry(cmd.dirs.configDir);
  const entry = serverOrReport(io, registry, id, {
    json: cmd.json,
    document: (diagnostics, status) => ({
      id,
      ...(status?.transport !== undefined ? { transport: status.transport } : {}),
      ...(status !== undefined ? { file: status.file } : {}),
      ok: false,
      diagnostics,
    }),
    action: 'showing it',
  });
  if (!entry) return EXIT_FAILURE;

  const credentials = await loadCredentials(configFiles(cmd.dirs.configDir).credentials, io.env);
  const readiness = await checkReadiness(entry, {
    env: io.env,
    home: io.home,
    credentials: credentials.source,
  });
  // a credential pasted as a literal is reported by key and never shown
  const known = knownCredentials(
    credentials.source,
    [...registry.servers.values()].flatMap((e) => referencedEnvVars(e.definition)),
  );
  const secrets = known.map((c) => c.value);
  const diagnostics = [
    ...diagnosticsAffecting(registry, id),
    ...credentials.diagnostics,
    ...readiness.diagnostics,
    ...fragmentCredentialLiterals([entry], known),
  ];
  // a server that is NOT READY fails `show`, whatever the severity of what made it so
  const failed = hasErrors(diagnostics) || !readiness.ok;
  const definition = maskDeep(
    Object.fromEntries(Object.entries(entry.definition).filter(([key]) => key !== 'id')),
    secrets,
  );
  if (cmd.json) {
    printJson(io, {
      id,
      transport: entry.definition.transport,
      ok: !failed,
      definition,
      file: entry.file,
      ...(entry.line !== undefined ? { line: entry.line } : {}),
      ...(entry.column !== undefined ? { column: entry.column } : {}),
      replaces: entry.replaces,
      readiness: readinessJson(readiness),
      diagnostics,
    });
    return failed ? EXIT_FAILURE : EXIT_OK;
  }
  // replacement notes are part of the provenance printed below
  printDiagnostics(
    io,
    diagnostics.filter((d) => d.severity !== 'info'),
  );
  const provenance = [`Defined in: ${location(entry)}`];
  for (const replaced of entry.replaces) provenance.push(`Replaces:   ${replaced}`);
  if (entry.replaces.length > 0) {
    provenance.push(
      `            (${basename(entry.file)} wins: later fragments replace the whole entry)`,
    );
  }
  io.stdout(
    `${id} (${entry.definition.transport})\n\n${provenance.join('\n')}\n\n` +
      `${maskSecrets(definitionToml(entry.definition), secrets)}\n${readinessText(readiness)}`,
  );
  return failed ? EXIT_FAILURE : EXIT_OK;
}
