/**
 * Writes registry entries in another client's format (pure): Codex `[mcp_servers.ID]` tables,
 * a Claude Code `{"mcpServers": …}` file, or an MCP registry `server.json`. Variables stay
 * references (`env_vars`, `${VAR}`, `{VAR}` with `isSecret`); no credential value is ever read.
 * What a format cannot hold is reported (`export-field-dropped`, `export-not-expressible`).
 */
import { basename } from 'node:path';

import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { registryDiagnostic } from '../../config/registry/diagnostic-codes.js';
import type { RegistryEntry, ServerDefinition } from '../../config/registry/types.js';
import { tomlKey, tomlString } from './fragment-text.js';
import { SERVER_JSON_SCHEMA_URL } from './import-server-json.js';

export const EXPORT_FORMATS = ['codex', 'claude', 'server-json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportResult {
  /** The text to print; absent when an entry could not be written at all. */
  readonly text?: string;
  readonly diagnostics: readonly Diagnostic[];
}

function strings(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

function inlineTable(values: Readonly<Record<string, string>>): string {
  const parts = Object.entries(values).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`);
  return `{ ${parts.join(', ')} }`;
}

function codexTable(d: ServerDefinition): string {
  const lines = [`[mcp_servers.${tomlKey(d.id)}]`];
  if (d.transport === 'stdio') {
    lines.push(`command = ${tomlString(d.command)}`);
    if (d.args !== undefined && d.args.length > 0) lines.push(`args = ${strings(d.args)}`);
    if (d.cwd !== undefined) lines.push(`cwd = ${tomlString(d.cwd)}`);
    if (d.env !== undefined && Object.keys(d.env).length > 0) {
      lines.push(`env = ${inlineTable(d.env)}`);
    }
    if (d.env_vars !== undefined && d.env_vars.length > 0) {
      lines.push(`env_vars = ${strings(d.env_vars)}`);
    }
  } else {
    lines.push(`url = ${tomlString(d.url)}`);
    if (d.bearer_token_env_var !== undefined) {
      lines.push(`bearer_token_env_var = ${tomlString(d.bearer_token_env_var)}`);
    }
    if (d.http_headers !== undefined && Object.keys(d.http_headers).length > 0) {
      lines.push(`http_headers = ${inlineTable(d.http_headers)}`);
    }
    if (d.env_http_headers !== undefined && Object.keys(d.env_http_headers).length > 0) {
      lines.push(`env_http_headers = ${inlineTable(d.env_http_headers)}`);
    }
  }
  lines.push(`enabled_tools = ${strings(d.enabled_tools)}`);
  lines.push(`default_tools_approval_mode = ${tomlString(d.default_tools_approval_mode)}`);
  if (d.startup_timeout_sec !== undefined) {
    lines.push(`startup_timeout_sec = ${String(d.startup_timeout_sec)}`);
  }
  if (d.tool_timeout_sec !== undefined)
    lines.push(`tool_timeout_sec = ${String(d.tool_timeout_sec)}`);
  for (const [tool, override] of Object.entries(d.tools ?? {})) {
    lines.push('', `[mcp_servers.${tomlKey(d.id)}.tools.${tomlKey(tool)}]`);
    lines.push(`approval_mode = ${tomlString(override.approval_mode)}`);
  }
  return lines.join('\n');
}

function dropped(entry: RegistryEntry, what: string, format: string): Diagnostic {
  return registryDiagnostic('export-field-dropped', {
    message: `${what} of server '${entry.definition.id}' has no place in ${format} and is left out`,
    file: entry.file,
    server: entry.definition.id,
  });
}

function claudeEntry(entry: RegistryEntry, out: Diagnostic[]): Record<string, unknown> {
  const d = entry.definition;
  const format = "Claude Code's MCP file";
  out.push(
    dropped(
      entry,
      `enabled_tools (${String(d.enabled_tools.length)} tools) and the approval modes`,
      format,
    ),
  );
  if (d.startup_timeout_sec !== undefined || d.tool_timeout_sec !== undefined) {
    out.push(dropped(entry, 'the timeouts', format));
  }
  if (d.transport === 'stdio') {
    if (d.cwd !== undefined) out.push(dropped(entry, 'cwd', format));
    const env: Record<string, string> = { ...(d.env ?? {}) };
    for (const name of d.env_vars ?? []) env[name] = `\${${name}}`;
    return {
      type: 'stdio',
      command: d.command,
      args: [...(d.args ?? [])],
      ...(Object.keys(env).length > 0 ? { env } : {}),
    };
  }
  const headers: Record<string, string> = { ...(d.http_headers ?? {}) };
  for (const [header, name] of Object.entries(d.env_http_headers ?? {}))
    headers[header] = `\${${name}}`;
  if (d.bearer_token_env_var !== undefined) {
    headers.Authorization = `Bearer \${${d.bearer_token_env_var}}`;
  }
  return { type: 'http', url: d.url, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
}

/** `npx -y pkg@1.2.3 ARGS`, `uvx pkg==1.2.3 ARGS`, `docker run -i --rm [-e V]… image:tag ARGS`. */
function packageOf(
  d: Extract<ServerDefinition, { transport: 'stdio' }>,
): Record<string, unknown> | string {
  const runtime = basename(d.command);
  const args = [...(d.args ?? [])];
  const positional = (values: readonly string[]) =>
    values.map((value) => ({ type: 'positional', value }));
  if (runtime === 'npx' || runtime === 'uvx') {
    const at = args.findIndex((a) => !a.startsWith('-'));
    const spec = args[at];
    if (spec === undefined) return `its ${runtime} command names no package`;
    const split = runtime === 'npx' ? spec.lastIndexOf('@') : spec.indexOf('==');
    if (split <= 0)
      return `its package ${spec} names no version: write the version you reviewed first`;
    const options = args.slice(0, at);
    const ownOptions =
      runtime === 'npx' && options.every((o) => o === '-y' || o === '--yes') ? [] : options;
    return {
      registryType: runtime === 'npx' ? 'npm' : 'pypi',
      identifier: spec.slice(0, split),
      version: spec.slice(split + (runtime === 'npx' ? 1 : 2)),
      runtimeHint: runtime,
      transport: { type: 'stdio' },
      ...(ownOptions.length > 0 ? { runtimeArguments: positional(ownOptions) } : {}),
      ...(args.length > at + 1 ? { packageArguments: positional(args.slice(at + 1)) } : {}),
    };
  }
  if (runtime === 'docker' && args[0] === 'run') {
    let i = 1;
    const options: string[] = [];
    while (i < args.length && (args[i] ?? '').startsWith('-')) {
      const option = args[i] ?? '';
      if (option === '-e' || option === '--env') i += 2;
      else if (['-i', '--rm', '-t', '--interactive', '--init'].includes(option)) {
        options.push(option);
        i++;
      } else return `its docker option ${option} has no server.json form`;
    }
    const image = args[i];
    if (image === undefined) return 'its docker command names no image';
    const tag = /^(.*[^/]):([^/:]+)$/.exec(image);
    if (tag?.[1] === undefined || tag[2] === undefined) return `its image ${image} names no tag`;
    const own = options.join(' ') === '-i --rm' ? [] : options;
    return {
      registryType: 'oci',
      identifier: tag[1],
      version: tag[2],
      runtimeHint: 'docker',
      transport: { type: 'stdio' },
      ...(own.length > 0 ? { runtimeArguments: positional(own) } : {}),
      ...(args.length > i + 1 ? { packageArguments: positional(args.slice(i + 1)) } : {}),
    };
  }
  return `a server.json package is an npm (npx), PyPI (uvx) or OCI (docker run) package, and its command is ${d.command}`;
}

function serverJson(entry: RegistryEntry, out: Diagnostic[]): Record<string, unknown> | undefined {
  const d = entry.definition;
  const format = 'server.json';
  out.push(dropped(entry, 'enabled_tools and the approval modes', format));
  const doc: Record<string, unknown> = {
    $schema: SERVER_JSON_SCHEMA_URL,
    name: `local.codex-mmo/${d.id}`,
    description: `${d.id}, exported from the codex-mmo registry: set name, description and version before publishing`,
    version: '0.0.0',
  };
  if (d.transport === 'streamable_http') {
    const headers: Record<string, unknown>[] = Object.entries(d.http_headers ?? {}).map(
      ([name, value]) => ({ name, value }),
    );
    const variable = (name: string) => ({ [name]: { isSecret: true, isRequired: true } });
    for (const [name, v] of Object.entries(d.env_http_headers ?? {})) {
      headers.push({
        name,
        value: `{${v}}`,
        isSecret: true,
        isRequired: true,
        variables: variable(v),
      });
    }
    if (d.bearer_token_env_var !== undefined) {
      const v = d.bearer_token_env_var;
      headers.push({
        name: 'Authorization',
        value: `Bearer {${v}}`,
        isSecret: true,
        isRequired: true,
        variables: variable(v),
      });
    }
    return {
      ...doc,
      remotes: [
        { type: 'streamable-http', url: d.url, ...(headers.length > 0 ? { headers } : {}) },
      ],
    };
  }
  if (d.cwd !== undefined) out.push(dropped(entry, 'cwd', format));
  const pkg = packageOf(d);
  if (typeof pkg === 'string') {
    out.push(
      registryDiagnostic('export-not-expressible', {
        message: `server '${d.id}' cannot be written as a server.json: ${pkg}`,
        file: entry.file,
        server: d.id,
      }),
    );
    return undefined;
  }
  const environmentVariables = [
    ...Object.entries(d.env ?? {}).map(([name, value]) => ({ name, value })),
    ...(d.env_vars ?? []).map((name) => ({ name, isSecret: true, isRequired: true })),
  ];
  if (typeof pkg.version === 'string') doc.version = pkg.version;
  return {
    ...doc,
    packages: [{ ...pkg, ...(environmentVariables.length > 0 ? { environmentVariables } : {}) }],
  };
}

/** The entries in `format`; server.json takes one entry. */
export function exportServers(
  entries: readonly RegistryEntry[],
  format: ExportFormat,
): ExportResult {
  const diagnostics: Diagnostic[] = [];
  switch (format) {
    case 'codex':
      return {
        text: `${entries.map((e) => codexTable(e.definition)).join('\n\n')}\n`,
        diagnostics,
      };
    case 'claude': {
      const mcpServers: Record<string, unknown> = {};
      for (const entry of entries)
        mcpServers[entry.definition.id] = claudeEntry(entry, diagnostics);
      return { text: `${JSON.stringify({ mcpServers }, null, 2)}\n`, diagnostics };
    }
    case 'server-json': {
      const docs = entries.map((e) => serverJson(e, diagnostics));
      const first = docs[0];
      if (docs.length !== 1 || first === undefined) return { diagnostics };
      return { text: `${JSON.stringify(first, null, 2)}\n`, diagnostics };
    }
  }
}
