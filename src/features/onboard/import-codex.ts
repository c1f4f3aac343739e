/**
 * Reads the `[mcp_servers.NAME]` tables of a Codex `config.toml` (pure) into import candidates:
 * stdio (`command`, `args`, `env`, `env_vars`, `cwd`) and Streamable HTTP (`url`,
 * `bearer_token_env_var`, `bearer_token`, `http_headers`, `env_http_headers`) servers with their
 * tool lists, approval mode and timeouts. Every other key of a table is refused by name.
 */
import { keyLocation, type KeyPath } from '../../foundation/toml/key-positions.js';
import { parseTomlText } from '../../foundation/toml/parse-toml.js';
import type { KnownCredential } from '../../config/registry/credential-literals.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import { APPROVAL_MODES, type ApprovalMode } from '../../config/registry/types.js';
import type { FragmentTarget } from './fragment-text.js';
import {
  derivedVariable,
  entryDiagnostic,
  envFields,
  headerFields,
  httpTarget,
  unknownKey,
  type EntryReporter,
  type SourceValue,
} from './import-literals.js';
import { secretArguments } from './import-arguments.js';
import type { ImportCandidate, ParsedImportFile } from './import-types.js';

const STDIO_KEYS = ['command', 'args', 'env', 'env_vars', 'cwd'];
const HTTP_KEYS = [
  'url',
  'bearer_token_env_var',
  'bearer_token',
  'http_headers',
  'env_http_headers',
];
const COMMON_KEYS = [
  'enabled',
  'required',
  'enabled_tools',
  'disabled_tools',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'default_tools_approval_mode',
  'supports_parallel_tool_calls',
  'tools',
];
const OAUTH_KEYS = ['oauth', 'oauth_resource', 'scopes', 'auth'];
const KNOWN_KEYS = [...STDIO_KEYS, ...HTTP_KEYS, ...COMMON_KEYS];

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

function isStringTable(value: unknown): value is Record<string, string> {
  return isTable(value) && Object.values(value).every((v) => typeof v === 'string');
}

function literals(table: Record<string, string>): Record<string, SourceValue> {
  const out: Record<string, SourceValue> = {};
  for (const [key, value] of Object.entries(table)) out[key] = { kind: 'literal', value };
  return out;
}

/** Refuses OAuth and unknown keys of an entry, and names the settings import leaves out. */
function checkKeys(
  name: string,
  entry: Record<string, unknown>,
  reporter: EntryReporter,
  base: KeyPath,
): void {
  for (const key of Object.keys(entry)) {
    if (KNOWN_KEYS.includes(key)) continue;
    if (OAUTH_KEYS.includes(key)) {
      entryDiagnostic(
        reporter,
        'import-unsupported-auth',
        [...base, key],
        `server '${name}' signs in through OAuth (${key}); the registry keeps no OAuth state. Give the server a token through bearer_token_env_var, or leave it out with --only`,
      );
      continue;
    }
    unknownKey(reporter, [...base, key], name, key, KNOWN_KEYS);
  }
  for (const key of ['enabled', 'required', 'supports_parallel_tool_calls', 'tools']) {
    if (entry[key] === undefined || (key === 'enabled' && entry[key] === true)) continue;
    const why: Record<string, string> = {
      enabled:
        'Codex has it switched off; the registry has no switch: a server is used only where a profile grants it',
      required: 'profile grants decide whether a server is required',
      supports_parallel_tool_calls: 'set it in the fragment by hand if you need it',
      tools:
        'per-tool approval modes are set after import: tools that the server annotates destructive get approval_mode = "prompt"',
    };
    entryDiagnostic(
      reporter,
      'import-field-ignored',
      [...base, key],
      `${key} of server '${name}' is not imported: ${why[key] ?? ''}`,
    );
  }
}

/** One `[mcp_servers.NAME]` table as a candidate. */
function candidate(
  name: string,
  entry: unknown,
  reporter: EntryReporter,
  base: KeyPath,
): Omit<ImportCandidate, 'source'> {
  const invalid = (path: KeyPath, message: string): void => {
    entryDiagnostic(reporter, 'import-invalid-entry', path, message);
  };
  const empty = { name, id: name, secrets: [], referenced: [], diagnostics: reporter.diagnostics };
  if (!isTable(entry)) {
    invalid(base, `mcp_servers.${name} is not a table; write it as [mcp_servers.${name}]`);
    return empty;
  }
  checkKeys(name, entry, reporter, base);
  const str = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    invalid([...base, key], `${key} must be a string`);
    return undefined;
  };
  const strings = (key: string): string[] | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (isStringArray(value)) return value;
    invalid([...base, key], `${key} must be an array of strings`);
    return undefined;
  };
  const table = (key: string): Record<string, string> | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (isStringTable(value)) return value;
    invalid([...base, key], `${key} must be a table of strings`);
    return undefined;
  };
  const seconds = (key: string, scale = 1): number | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value / scale;
    invalid([...base, key], `${key} must be a positive number`);
    return undefined;
  };

  const command = str('command');
  const url = str('url');
  const tools = strings('enabled_tools');
  const excludeTools = strings('disabled_tools');
  const mode = entry.default_tools_approval_mode;
  let approvalMode: ApprovalMode | undefined;
  if (mode !== undefined) {
    if (typeof mode === 'string' && (APPROVAL_MODES as readonly string[]).includes(mode)) {
      approvalMode = mode as ApprovalMode;
    } else {
      invalid(
        [...base, 'default_tools_approval_mode'],
        `default_tools_approval_mode must be one of ${APPROVAL_MODES.join(', ')}`,
      );
    }
  }
  const startup = seconds('startup_timeout_sec') ?? seconds('startup_timeout_ms', 1000);
  const toolTimeout = seconds('tool_timeout_sec');
  const settings = {
    ...(tools !== undefined ? { tools } : {}),
    ...(excludeTools !== undefined ? { excludeTools } : {}),
    ...(approvalMode !== undefined ? { approvalMode } : {}),
    ...(startup !== undefined ? { startupTimeoutSec: startup } : {}),
    ...(toolTimeout !== undefined ? { toolTimeoutSec: toolTimeout } : {}),
  };

  if (command !== undefined && url !== undefined) {
    invalid(base, `server '${name}' has both command and url; keep one`);
    return empty;
  }
  if (command !== undefined) {
    for (const key of HTTP_KEYS.filter((k) => entry[k] !== undefined)) {
      invalid([...base, key], `${key} is for HTTP servers, but server '${name}' has a command`);
    }
    const args = strings('args') ?? [];
    secretArguments(args, [...base, 'args'], reporter);
    const env = envFields(literals(table('env') ?? {}), [...base, 'env'], reporter);
    const forwarded = (strings('env_vars') ?? []).filter((v) => !env.envVars.includes(v));
    const cwd = str('cwd');
    const target: FragmentTarget = {
      transport: 'stdio',
      command,
      args,
      envVars: [...env.envVars, ...forwarded],
      ...(cwd !== undefined ? { cwd } : {}),
      ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
    };
    return {
      ...empty,
      target,
      ...settings,
      secrets: env.secrets,
      referenced: [...env.referenced, ...forwarded],
    };
  }
  if (url !== undefined) {
    for (const key of STDIO_KEYS.filter((k) => entry[k] !== undefined)) {
      invalid([...base, key], `${key} is for stdio servers, but server '${name}' has a url`);
    }
    const headers = headerFields(
      name,
      literals(table('http_headers') ?? {}),
      [...base, 'http_headers'],
      reporter,
    );
    for (const [header, variable] of Object.entries(table('env_http_headers') ?? {})) {
      headers.headerEnv[header] = variable;
      headers.referenced.push(variable);
    }
    const bearerVar = str('bearer_token_env_var');
    const bearerLiteral = str('bearer_token');
    if (bearerVar !== undefined) {
      headers.bearer = bearerVar;
      headers.referenced.push(bearerVar);
    } else if (bearerLiteral !== undefined && bearerLiteral !== '') {
      const variable = derivedVariable(name, 'TOKEN');
      headers.bearer = variable;
      headers.secrets.push({
        name: variable,
        from: `mcp_servers.${name}.bearer_token`,
        value: bearerLiteral,
      });
    }
    const target = httpTarget(url, headers);
    return {
      ...empty,
      target,
      ...settings,
      secrets: headers.secrets,
      referenced: headers.referenced,
    };
  }
  invalid(base, `server '${name}' has neither command (stdio) nor url (Streamable HTTP)`);
  return empty;
}

/** The MCP servers of a Codex `config.toml`. */
export function parseCodexConfig(
  text: string,
  file: string,
  known: readonly KnownCredential[],
): ParsedImportFile {
  const parsed = parseTomlText(text.startsWith('\uFEFF') ? text.slice(1) : text, file);
  if (!parsed.ok) {
    return {
      format: 'codex',
      file,
      candidates: [],
      diagnostics: parsed.diagnostics.map((d) =>
        registryDiagnostic('import-syntax', {
          message: d.message,
          file,
          ...(d.line !== undefined ? { line: d.line } : {}),
          ...(d.column !== undefined ? { column: d.column } : {}),
        }),
      ),
    };
  }
  const servers = parsed.value.mcp_servers;
  if (!isTable(servers) || Object.keys(servers).length === 0) {
    return {
      format: 'codex',
      file,
      candidates: [],
      diagnostics: [
        registryDiagnostic('import-no-servers', {
          message: 'the file has no [mcp_servers.NAME] tables; nothing to import',
          file,
        }),
      ],
    };
  }
  const candidates = Object.entries(servers).map(([name, entry]): ImportCandidate => {
    const base: KeyPath = ['mcp_servers', name];
    const reporter: EntryReporter = {
      at: (path) => keyLocation(file, parsed.positions, path),
      server: name,
      known,
      diagnostics: [],
    };
    const at = keyLocation(file, parsed.positions, base);
    return { ...candidate(name, entry, reporter, base), source: { ...at, file } };
  });
  return { format: 'codex', file, candidates, diagnostics: [] };
}
