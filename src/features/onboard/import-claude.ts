/**
 * Reads Claude Code's MCP files (pure): a project's `.mcp.json` and `~/.claude.json`, whose
 * servers are the top-level `mcpServers` and each `projects.<dir>.mcpServers`. An entry is
 * `{type?: "stdio"|"http"|"sse", command, args, env, url, headers}`; `${VAR}` and
 * `${VAR:-default}` in env and header values become variable names, never expanded values.
 */
import { keyLocation, type KeyPath } from '../../foundation/toml/key-positions.js';
import type { KnownCredential } from '../../config/registry/credential-literals.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import type { FragmentTarget } from './fragment-text.js';
import { secretArguments } from './import-arguments.js';
import {
  entryDiagnostic,
  envFields,
  expansionOf,
  headerFields,
  httpTarget,
  unknownKey,
  refuseExpansion,
  type EntryReporter,
  type SourceValue,
} from './import-literals.js';
import type { ImportCandidate, ParsedImportFile } from './import-types.js';
import { parseJsonDocument } from './json-document.js';

const KNOWN_KEYS = ['type', 'command', 'args', 'env', 'url', 'headers'];
const AUTH_KEYS = ['headersHelper', 'oauth'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expanded(table: Record<string, unknown>): Record<string, SourceValue> {
  const out: Record<string, SourceValue> = {};
  for (const [key, value] of Object.entries(table)) {
    if (typeof value === 'string') out[key] = expansionOf(value);
  }
  return out;
}

function candidate(
  name: string,
  entry: unknown,
  reporter: EntryReporter,
  base: KeyPath,
): Omit<ImportCandidate, 'source'> {
  const empty = { name, id: name, secrets: [], referenced: [], diagnostics: reporter.diagnostics };
  const invalid = (path: KeyPath, message: string): void => {
    entryDiagnostic(reporter, 'import-invalid-entry', path, message);
  };
  if (!isObject(entry)) {
    invalid(base, `server '${name}' is not a JSON object`);
    return empty;
  }
  for (const key of Object.keys(entry)) {
    if (KNOWN_KEYS.includes(key)) continue;
    if (AUTH_KEYS.includes(key)) {
      entryDiagnostic(
        reporter,
        'import-unsupported-auth',
        [...base, key],
        `server '${name}' gets its credentials through ${key}, which the registry cannot run; give it a token through a header variable (env_http_headers or bearer_token_env_var), or leave it out with --only`,
      );
      continue;
    }
    unknownKey(reporter, [...base, key], name, key, KNOWN_KEYS);
  }
  const str = (key: string): string | undefined => {
    const value = entry[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    invalid([...base, key], `${key} must be a string`);
    return undefined;
  };
  const object = (key: string): Record<string, unknown> => {
    const value = entry[key];
    if (value === undefined) return {};
    if (isObject(value) && Object.values(value).every((v) => typeof v === 'string')) return value;
    invalid([...base, key], `${key} must be an object of strings`);
    return {};
  };
  const type = str('type');
  const command = str('command');
  const url = str('url');
  if (type === 'sse') {
    entryDiagnostic(
      reporter,
      'import-unsupported-transport',
      [...base, 'type'],
      `server '${name}' uses the SSE transport, which MCP replaced by Streamable HTTP and the registry does not run; if the server also serves Streamable HTTP (often at /mcp instead of /sse), add that URL with \`codex-mmo tool-mcp add ${name} --url URL\``,
    );
    return empty;
  }
  if (type !== undefined && type !== 'stdio' && type !== 'http') {
    invalid(
      [...base, 'type'],
      `type must be "stdio", "http" or "sse", not ${JSON.stringify(type)}`,
    );
    return empty;
  }
  const isHttp =
    type === 'http' || (type === undefined && command === undefined && url !== undefined);
  if (!isHttp) {
    if (command === undefined) {
      invalid(base, `server '${name}' has no command (stdio) and no url with "type": "http"`);
      return empty;
    }
    const rawArgs = entry.args ?? [];
    if (!Array.isArray(rawArgs) || !rawArgs.every((a) => typeof a === 'string')) {
      invalid([...base, 'args'], 'args must be an array of strings');
      return empty;
    }
    const args = rawArgs;
    refuseExpansion(command, [...base, 'command'], reporter);
    args.forEach((arg, index) => refuseExpansion(arg, [...base, 'args', index], reporter));
    // an argument with a reference is refused above already
    secretArguments(
      args.map((a) => (a.includes('${') ? '' : a)),
      [...base, 'args'],
      reporter,
    );
    for (const key of ['url', 'headers'].filter((k) => entry[k] !== undefined)) {
      invalid([...base, key], `${key} is for HTTP servers, but server '${name}' has a command`);
    }
    const env = envFields(expanded(object('env')), [...base, 'env'], reporter);
    const target: FragmentTarget = {
      transport: 'stdio',
      command,
      args,
      envVars: env.envVars,
      ...(Object.keys(env.env).length > 0 ? { env: env.env } : {}),
    };
    return { ...empty, target, secrets: env.secrets, referenced: env.referenced };
  }
  if (url === undefined) {
    invalid(base, `server '${name}' has "type": "http" but no url`);
    return empty;
  }
  refuseExpansion(url, [...base, 'url'], reporter);
  for (const key of ['command', 'args', 'env'].filter((k) => entry[k] !== undefined)) {
    invalid([...base, key], `${key} is for stdio servers, but server '${name}' is an HTTP server`);
  }
  const headers = headerFields(name, expanded(object('headers')), [...base, 'headers'], reporter);
  const target = httpTarget(url, headers);
  return { ...empty, target, secrets: headers.secrets, referenced: headers.referenced };
}

/** The MCP servers of a `.mcp.json` or `~/.claude.json`. */
export function parseClaudeConfig(
  text: string,
  file: string,
  known: readonly KnownCredential[],
): ParsedImportFile {
  const parsed = parseJsonDocument(text, file);
  if (!parsed.ok)
    return { format: 'claude', file, candidates: [], diagnostics: parsed.diagnostics };
  const root = parsed.value;
  const groups: { base: KeyPath; servers: Record<string, unknown> }[] = [];
  if (isObject(root)) {
    if (isObject(root.mcpServers)) groups.push({ base: ['mcpServers'], servers: root.mcpServers });
    if (isObject(root.projects)) {
      for (const [dir, project] of Object.entries(root.projects)) {
        if (isObject(project) && isObject(project.mcpServers)) {
          groups.push({ base: ['projects', dir, 'mcpServers'], servers: project.mcpServers });
        }
      }
    }
  }
  const candidates: ImportCandidate[] = [];
  for (const group of groups) {
    for (const [name, entry] of Object.entries(group.servers)) {
      const base = [...group.base, name];
      const reporter: EntryReporter = {
        at: (path) => keyLocation(file, parsed.positions, path),
        server: name,
        known,
        diagnostics: [],
      };
      const at = keyLocation(file, parsed.positions, base);
      candidates.push({ ...candidate(name, entry, reporter, base), source: { ...at, file } });
    }
  }
  const diagnostics =
    candidates.length === 0
      ? [
          registryDiagnostic('import-no-servers', {
            message:
              'the file has no servers under "mcpServers" (nor under "projects.<dir>.mcpServers"); nothing to import',
            file,
          }),
        ]
      : [];
  return { format: 'claude', file, candidates, diagnostics };
}
