/**
 * Validates one `[tool_mcp_servers.ID]` entry against the schema-version-8 field rules with
 * hand-written, linear checks, reporting every problem at its key, and builds the normalised
 * definition (present fields only, in catalogue order) when the entry has no errors.
 */
import { didYouMean } from '../../foundation/diagnostics/did-you-mean.js';
import type { KeyPath } from '../../foundation/toml/key-positions.js';
import { isCredentialName, isCredentialValue } from './credential-patterns.js';
import { describeType, isTable, showKey, type DiagnosticSink } from './diagnostic-sink.js';
import {
  ENV_VAR_NAME_PATTERN,
  FIELD_BY_NAME,
  FIELDS,
  HEADER_NAME_PATTERN,
  REJECTED_FIELDS,
  TOOL_OVERRIDE_FIELDS,
  TRANSPORTS,
  fieldNamesFor,
  type FieldSpec,
} from './field-catalogue.js';
import {
  APPROVAL_MODES,
  RESERVED_SERVER_ID,
  SERVER_ID_PATTERN,
  type ApprovalMode,
  type ServerDefinition,
  type Transport,
} from './types.js';
import {
  checkStringArray,
  checkToolArray,
  hasControl,
  hasNul,
  type Report,
} from './field-list-checks.js';
import { checkUrl } from './url-rules.js';

export interface ServerResult {
  readonly id: string;
  /** The transport the entry declares, when it is a valid one. */
  readonly transport?: Transport;
  /** Present only when the entry has no errors (and its ID is valid). */
  readonly definition?: ServerDefinition;
}

const SERVERS = 'tool_mcp_servers';

/** Validates the entry `value` of server `id`; diagnostics go to `sink`. */
export function validateServer(id: string, value: unknown, sink: DiagnosticSink): ServerResult {
  const errorsBefore = sink.errorCount;
  const base: KeyPath = [SERVERS, id];
  const report = (
    code: Parameters<DiagnosticSink['report']>[0],
    path: KeyPath,
    message: string,
  ): void => {
    sink.report(code, path, message, id);
  };

  if (id === RESERVED_SERVER_ID) {
    report(
      'reserved-server-id',
      base,
      'the ID mmo_mesh is reserved for the runtime-owned Agent MCP server; choose another ID',
    );
  } else if (isCredentialValue(id)) {
    report(
      'invalid-server-id',
      base,
      'this ID has the shape of a credential (a token or key); name the server after the tool, e.g. firecrawl',
    );
  } else if (!SERVER_ID_PATTERN.test(id)) {
    report(
      'invalid-server-id',
      base,
      'server IDs start with a lowercase letter and use only lowercase letters, digits, "_" and "-" (at most 64 characters); rename the table',
    );
  }

  if (!isTable(value)) {
    report(
      'server-not-table',
      base,
      `a server definition must be a table ([tool_mcp_servers.${SERVER_ID_PATTERN.test(id) ? id : 'ID'}]), not ${describeType(value)}`,
    );
    return { id };
  }

  // transport first: it decides which fields belong
  let transport: Transport | undefined;
  if (!Object.hasOwn(value, 'transport')) {
    report(
      'missing-field',
      [...base, 'transport'],
      'transport is required: add transport = "stdio" (with command) or transport = "streamable_http" (with url)',
    );
  } else {
    const t = value.transport;
    if (typeof t === 'string' && (TRANSPORTS as readonly string[]).includes(t)) {
      transport = t as Transport;
    } else {
      const hint =
        typeof t === 'string' && /^(sse|http|https|streamable-http|streamablehttp)$/i.test(t)
          ? ' (did you mean "streamable_http"?)'
          : typeof t === 'string'
            ? didYouMean(t, TRANSPORTS)
            : '';
      report(
        'invalid-transport',
        [...base, 'transport'],
        `transport must be "stdio" or "streamable_http"${hint}`,
      );
    }
  }

  const out = new Map<string, unknown>();
  if (transport !== undefined) out.set('transport', transport);
  const accepted = fieldNamesFor(transport);

  for (const [key, fieldValue] of Object.entries(value)) {
    if (key === 'transport') continue;
    const path: KeyPath = [...base, key];
    const spec = FIELD_BY_NAME.get(key);
    if (spec !== undefined) {
      if (spec.transport !== 'both' && transport !== undefined && spec.transport !== transport) {
        const other = spec.transport;
        report(
          'wrong-transport-field',
          path,
          `${key} belongs to ${other} servers, but this server's transport is ${transport}; remove it, or set transport = "${other}"`,
        );
      }
      const normalised = checkField(spec, fieldValue, path, report);
      if (normalised !== undefined) out.set(key, normalised);
      continue;
    }
    const rejected = REJECTED_FIELDS.get(key);
    if (rejected !== undefined) {
      report(rejected.code, path, rejected.message);
      continue;
    }
    report(
      'unknown-field',
      path,
      `unknown field ${showKey(key)}${didYouMean(key, accepted)}; remove it (\`codex-mmo tool-mcp schema\` lists the fields a definition accepts)`,
    );
  }

  for (const spec of FIELDS) {
    if (!spec.required || spec.name === 'transport' || Object.hasOwn(value, spec.name)) continue;
    if (spec.transport !== 'both' && spec.transport !== transport) continue;
    report('missing-field', [...base, spec.name], missingMessage(spec));
  }

  // per-tool overrides must name enabled tools
  const rawTools = value.tools;
  if (isTable(rawTools) && Array.isArray(value.enabled_tools)) {
    const enabledSet = new Set(value.enabled_tools.filter((t) => typeof t === 'string'));
    for (const tool of Object.keys(rawTools)) {
      if (!enabledSet.has(tool)) {
        report(
          'tool-not-enabled',
          [...base, 'tools', tool],
          `tools.${showKey(tool)} overrides a tool that is not in enabled_tools; add it to enabled_tools or remove the override`,
        );
      }
    }
  }

  if (sink.errorCount !== errorsBefore || transport === undefined) {
    return transport === undefined ? { id } : { id, transport };
  }

  const definition: Record<string, unknown> = { id };
  for (const spec of FIELDS) {
    if (out.has(spec.name)) definition[spec.name] = out.get(spec.name);
  }
  return { id, transport, definition: definition as unknown as ServerDefinition };
}

function missingMessage(spec: FieldSpec): string {
  switch (spec.name) {
    case 'command':
      return 'stdio servers need command: add command = "executable-name" (or an absolute or ~/ path)';
    case 'url':
      return 'streamable_http servers need url: add url = "https://…"';
    case 'enabled_tools':
      return 'enabled_tools is required: list the tools this server may expose, e.g. enabled_tools = ["search"]';
    case 'default_tools_approval_mode':
      return 'default_tools_approval_mode is required: add one of "auto", "prompt", "writes" or "approve"';
    default:
      return `${spec.name} is required`;
  }
}

/** Checks one accepted field; returns its normalised value, or undefined when it is invalid. */
function checkField(spec: FieldSpec, value: unknown, path: KeyPath, report: Report): unknown {
  const name = spec.name;
  const mustBe = (what: string): void => {
    report('invalid-type', path, `${name} must be ${what}, not ${describeType(value)}`);
  };
  switch (spec.kind) {
    case 'transport':
      return undefined;
    case 'command': {
      if (typeof value !== 'string') {
        mustBe('a string');
        return undefined;
      }
      return checkCommand(value, path, report);
    }
    case 'path': {
      if (typeof value !== 'string') {
        mustBe('a string');
        return undefined;
      }
      if (hasNul(value)) {
        report('nul-character', path, `${name} contains a NUL character; remove it`);
        return undefined;
      }
      if (isCredentialValue(value)) {
        report('credential-literal-value', path, credentialPathAdvice(name));
        return undefined;
      }
      if (value === '~' || value.startsWith('/') || value.startsWith('~/')) return value;
      report(
        'relative-path',
        path,
        `${name} must be an absolute path or start with ~/ (relative paths depend on where Codex starts); write the full path`,
      );
      return undefined;
    }
    case 'string-array':
      return checkStringArray(name, value, path, report);
    case 'literal-table':
      return checkLiteralTable(name, value, path, report);
    case 'env-var-array': {
      if (!Array.isArray(value)) {
        mustBe('an array of environment variable names');
        return undefined;
      }
      let ok = true;
      const seen = new Set<string>();
      for (const [index, item] of (value as unknown[]).entries()) {
        const itemPath = [...path, index];
        if (!checkEnvVarName(name, item, itemPath, report)) ok = false;
        else if (seen.has(item as string)) {
          report(
            'duplicate-entry',
            itemPath,
            `${showKey(item as string)} is listed more than once in ${name}; remove the repeat`,
          );
          ok = false;
        } else seen.add(item as string);
      }
      return ok ? [...(value as string[])] : undefined;
    }
    case 'url': {
      if (typeof value !== 'string') {
        mustBe('a string');
        return undefined;
      }
      const findings = checkUrl(value);
      for (const finding of findings) report(finding.code, path, finding.message);
      return findings.length === 0 ? value : undefined;
    }
    case 'env-var-name':
      return checkEnvVarName(name, value, path, report) ? value : undefined;
    case 'header-env-table': {
      if (!isTable(value)) {
        mustBe('a table of header name = "VARIABLE_NAME"');
        return undefined;
      }
      let ok = true;
      for (const [header, variable] of Object.entries(value)) {
        const entryPath = [...path, header];
        if (!HEADER_NAME_PATTERN.test(header)) {
          report('invalid-header-name', entryPath, headerNameMessage());
          ok = false;
        }
        if (!checkEnvVarName(name, variable, entryPath, report)) ok = false;
      }
      return ok ? Object.fromEntries(Object.entries(value)) : undefined;
    }
    case 'tool-array':
      return checkToolArray(name, value, path, report);
    case 'approval-mode':
      return checkApprovalMode(name, value, path, report);
    case 'timeout': {
      if (typeof value !== 'number') {
        mustBe('a number of seconds');
        return undefined;
      }
      if (!Number.isFinite(value) || value <= 0) {
        report('invalid-timeout', path, `${name} must be a positive number of seconds, e.g. 30`);
        return undefined;
      }
      return value;
    }
    case 'boolean':
      if (typeof value !== 'boolean') mustBe('true or false');
      return typeof value === 'boolean' ? value : undefined;
    case 'tools-table':
      return checkToolsTable(value, path, report);
  }
}

function credentialPathAdvice(name: string): string {
  return `this ${name} looks like it contains a credential (a token or key), and ${name} is stored in snapshots and shown; remove the secret, forward a variable with env_vars = ["NAME"] and put NAME=… in credentials.env`;
}

function checkCommand(value: string, path: KeyPath, report: Report): string | undefined {
  if (value === '' || hasControl(value)) {
    report(
      'invalid-command',
      path,
      'command must be a non-empty executable name or path without control characters',
    );
    return undefined;
  }
  if (isCredentialValue(value)) {
    report('credential-literal-value', path, credentialPathAdvice('command'));
    return undefined;
  }
  if (value.startsWith('/') || value.startsWith('~/')) {
    // "/usr/bin/srv --verbose": an option written into the path, not a directory with spaces
    if (/\s-/.test(value)) {
      report(
        'invalid-command',
        path,
        'command names one executable, but this one has arguments after it; put them in args = [...] and keep only the path in command',
      );
      return undefined;
    }
    return value;
  }
  if (/\s/.test(value)) {
    report(
      'invalid-command',
      path,
      'command names one executable; put its arguments in args = [...] (for a path with spaces, write it absolute)',
    );
    return undefined;
  }
  if (value.includes('/') || value.startsWith('~')) {
    report(
      'relative-path',
      path,
      'command is a relative path; use a bare executable name found on PATH, an absolute path, or a ~/ path',
    );
    return undefined;
  }
  return value;
}

function headerNameMessage(): string {
  return "not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only); fix the name";
}

/** `env` (stdio) and `http_headers` (HTTP): literal, non-secret strings. */
function checkLiteralTable(
  name: string,
  value: unknown,
  path: KeyPath,
  report: Report,
): Record<string, string> | undefined {
  const isEnv = name === 'env';
  if (!isTable(value)) {
    report(
      'invalid-type',
      path,
      `${name} must be a table of ${isEnv ? 'NAME' : 'Header-Name'} = "literal value", not ${describeType(value)}`,
    );
    return undefined;
  }
  let ok = true;
  for (const [key, entry] of Object.entries(value)) {
    const entryPath = [...path, key];
    if (isEnv ? !ENV_VAR_NAME_PATTERN.test(key) : !HEADER_NAME_PATTERN.test(key)) {
      report(
        isEnv ? 'invalid-env-var-name' : 'invalid-header-name',
        entryPath,
        isEnv
          ? 'not a valid environment variable name (letters, digits and _, not starting with a digit); fix the name'
          : headerNameMessage(),
      );
      ok = false;
    } else if (isEnv && isReservedEnvVarName(key)) {
      report('reserved-env-var', entryPath, reservedEnvVarAdvice(key));
      ok = false;
    }
    if (isCredentialName(key)) {
      report('credential-literal-name', entryPath, credentialNameAdvice(isEnv, key));
      ok = false;
      continue;
    }
    if (typeof entry !== 'string') {
      report(
        'invalid-type',
        entryPath,
        `${name} values must be strings, not ${describeType(entry)}`,
      );
      ok = false;
      continue;
    }
    if (isCredentialValue(entry)) {
      report('credential-literal-value', entryPath, credentialValueAdvice(isEnv));
      ok = false;
      continue;
    }
    if (isEnv && hasNul(entry)) {
      report('nul-character', entryPath, 'env value contains a NUL character; remove it');
      ok = false;
    } else if (!isEnv && hasControl(entry, true)) {
      report(
        'invalid-header-value',
        entryPath,
        'header values may not contain control characters such as line breaks; remove them',
      );
      ok = false;
    }
  }
  return ok ? (Object.fromEntries(Object.entries(value)) as Record<string, string>) : undefined;
}

function credentialNameAdvice(isEnv: boolean, key: string): string {
  if (isEnv) {
    const variable = ENV_VAR_NAME_PATTERN.test(key) && !isCredentialValue(key) ? key : 'NAME';
    return `env.${showKey(key)} looks like a credential, and literal values are stored in snapshots and shown; remove it, add env_vars = ["${variable}"] and put ${variable}=… in credentials.env`;
  }
  const lower = key.toLowerCase();
  const bearerHint =
    lower === 'authorization'
      ? ' (for "Authorization: Bearer …", use bearer_token_env_var = "VAR" instead)'
      : '';
  return `http_headers.${showKey(key)} looks like a credential, and literal values are stored in snapshots and shown; move it to env_http_headers = { ${showKey(key)} = "VAR" } and put VAR=… in credentials.env${bearerHint}`;
}

function credentialValueAdvice(isEnv: boolean): string {
  return isEnv
    ? 'this env value looks like a credential (a token or key), and literal values are stored in snapshots and shown; remove it, forward a variable with env_vars = ["NAME"] and put NAME=… in credentials.env'
    : 'this header value looks like a credential (a token or key), and literal values are stored in snapshots and shown; move the header to env_http_headers = { Header = "VAR" } (or bearer_token_env_var for Authorization: Bearer) and put VAR=… in credentials.env';
}

/** An environment variable name (not a value); reports and returns false when it is not one. */
function checkEnvVarName(field: string, value: unknown, path: KeyPath, report: Report): boolean {
  if (typeof value !== 'string') {
    report(
      'invalid-type',
      path,
      `${field} takes environment variable names (strings), not ${describeType(value)}`,
    );
    return false;
  }
  if (isCredentialValue(value)) {
    report(
      'credential-literal-value',
      path,
      `${field} takes the NAME of an environment variable, but this looks like a credential value; write the variable's name here and put NAME=<value> in credentials.env`,
    );
    return false;
  }
  if (!ENV_VAR_NAME_PATTERN.test(value)) {
    report(
      'invalid-env-var-name',
      path,
      `${field} takes environment variable names (letters, digits and _, not starting with a digit); fix the name`,
    );
    return false;
  }
  if (isReservedEnvVarName(value)) {
    report('reserved-env-var', path, reservedEnvVarAdvice(value));
    return false;
  }
  return true;
}

/**
 * Names under `CODEX_MMO_` belong to codex-mmo itself (the per-process `mmo_mesh` credential
 * among them): a Tool MCP server may neither receive nor set them.
 */
function isReservedEnvVarName(name: string): boolean {
  return name.toUpperCase().startsWith('CODEX_MMO_');
}

function reservedEnvVarAdvice(name: string): string {
  return `${name} is reserved: names starting with CODEX_MMO_ belong to codex-mmo (a session's mmo_mesh credential among them) and are never given to a Tool MCP server; use another name`;
}

function checkApprovalMode(
  name: string,
  value: unknown,
  path: KeyPath,
  report: Report,
): ApprovalMode | undefined {
  if (typeof value === 'string' && (APPROVAL_MODES as readonly string[]).includes(value)) {
    return value as ApprovalMode;
  }
  const hint = typeof value === 'string' ? didYouMean(value, APPROVAL_MODES) : '';
  report(
    'invalid-approval-mode',
    path,
    `${name} must be "auto", "prompt" (always ask), "writes" (ask unless read-only) or "approve" (never ask)${hint}`,
  );
  return undefined;
}

function checkToolsTable(
  value: unknown,
  path: KeyPath,
  report: Report,
): Record<string, { approval_mode: ApprovalMode }> | undefined {
  if (!isTable(value)) {
    report(
      'invalid-type',
      path,
      `tools must be a table of per-tool overrides ([tool_mcp_servers.ID.tools.TOOL]), not ${describeType(value)}`,
    );
    return undefined;
  }
  let ok = true;
  const entries: [string, { approval_mode: ApprovalMode }][] = [];
  for (const [tool, override] of Object.entries(value)) {
    const toolPath = [...path, tool];
    if (!isTable(override)) {
      report(
        'invalid-type',
        toolPath,
        `tools.${showKey(tool)} must be a table with approval_mode, not ${describeType(override)}`,
      );
      ok = false;
      continue;
    }
    let mode: ApprovalMode | undefined;
    for (const [key, v] of Object.entries(override)) {
      if (key === 'approval_mode') {
        mode = checkApprovalMode('approval_mode', v, [...toolPath, key], report);
        if (mode === undefined) ok = false;
      } else {
        report(
          'unknown-field',
          [...toolPath, key],
          `unknown per-tool field ${showKey(key)}${didYouMean(key, TOOL_OVERRIDE_FIELDS)}; a tool override holds only approval_mode`,
        );
        ok = false;
      }
    }
    if (!Object.hasOwn(override, 'approval_mode')) {
      report(
        'missing-field',
        [...toolPath, 'approval_mode'],
        'a tool override needs approval_mode: "auto", "prompt", "writes" or "approve"',
      );
      ok = false;
    }
    if (mode !== undefined) entries.push([tool, { approval_mode: mode }]);
  }
  return ok ? Object.fromEntries(entries) : undefined;
}
