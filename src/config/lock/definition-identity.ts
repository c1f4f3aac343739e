/**
 * What decides which server runs, as a normalised record (pure): transport, command and the
 * executable it resolved to, the package a runner fetches, args, cwd, literal env (values as
 * digests), the names of forwarded variables, URL and header names. `tool-mcp pin` stores it with
 * its digest; a later difference is a changed definition, described field by field.
 */
import type { ServerDefinition } from '../registry/types.js';
import { referencedEnvVars } from '../registry/types.js';
import { canonicalJson, sha256Hex } from '../snapshot/canonical-json.js';
import { packageOf } from './package-spec.js';

export interface DefinitionIdentity {
  readonly transport: 'stdio' | 'streamable_http';
  readonly command?: string;
  /** The executable `command` resolved to when pinned (absent when it did not resolve). */
  readonly command_path?: string;
  /** `name@version` or `name` of the package a runner (npx, uvx, …) fetches. */
  readonly package?: string;
  readonly args?: readonly string[];
  readonly cwd?: string;
  /** Literal env names → `sha256:` digest of the value (values are not stored). */
  readonly env?: Readonly<Record<string, string>>;
  /** Every variable name the definition forwards or reads a header/token from, sorted. */
  readonly env_vars?: readonly string[];
  readonly url?: string;
  /** Literal and variable-backed header names (and Authorization for a bearer token), sorted. */
  readonly header_names?: readonly string[];
}

function digestOf(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}

function sorted(values: Iterable<string>): string[] {
  return [...new Set(values)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The identity of `definition`, with the command resolved to `commandPath` (if it resolved). */
export function definitionIdentity(
  definition: ServerDefinition,
  commandPath?: string,
): DefinitionIdentity {
  const vars = sorted(referencedEnvVars(definition));
  if (definition.transport === 'stdio') {
    const env: Record<string, string> = {};
    for (const name of sorted(Object.keys(definition.env ?? {}))) {
      env[name] = digestOf(definition.env?.[name] ?? '');
    }
    const pkg = packageOf(definition.command, definition.args ?? []);
    return {
      transport: 'stdio',
      command: definition.command,
      ...(commandPath !== undefined ? { command_path: commandPath } : {}),
      ...(pkg !== undefined
        ? { package: pkg.version !== undefined ? `${pkg.name}@${pkg.version}` : pkg.name }
        : {}),
      args: [...(definition.args ?? [])],
      ...(definition.cwd !== undefined ? { cwd: definition.cwd } : {}),
      ...(Object.keys(env).length > 0 ? { env } : {}),
      ...(vars.length > 0 ? { env_vars: vars } : {}),
    };
  }
  const headers = [
    ...Object.keys(definition.http_headers ?? {}),
    ...Object.keys(definition.env_http_headers ?? {}),
    ...(definition.bearer_token_env_var !== undefined ? ['Authorization'] : []),
  ];
  return {
    transport: 'streamable_http',
    url: definition.url,
    ...(vars.length > 0 ? { env_vars: vars } : {}),
    ...(headers.length > 0 ? { header_names: sorted(headers) } : {}),
  };
}

/** `sha256:` digest of the canonical JSON of an identity. */
export function identityDigest(identity: DefinitionIdentity): string {
  return digestOf(canonicalJson(identity));
}

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return JSON.stringify(value);
  return canonicalJson(value);
}

function listChange(label: string, before: readonly string[], after: readonly string[]): string {
  const added = after.filter((v) => !before.includes(v));
  const removed = before.filter((v) => !after.includes(v));
  const parts = [
    ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : []),
    ...(added.length > 0 ? [`added ${added.join(', ')}`] : []),
  ];
  return `${label} ${parts.length > 0 ? parts.join('; ') : 'reordered'}`;
}

/**
 * What differs between a pinned identity and the current one, one phrase per field. The command
 * path is compared only when both are known (a command that no longer resolves is its own error).
 */
export function identityChanges(pinned: DefinitionIdentity, current: DefinitionIdentity): string[] {
  const out: string[] = [];
  if (pinned.transport !== current.transport) {
    return [`transport ${pinned.transport} → ${current.transport}`];
  }
  const scalar = (key: 'command' | 'package' | 'cwd' | 'url', label: string) => {
    if (pinned[key] !== current[key]) {
      out.push(`${label} ${show(pinned[key])} → ${show(current[key])}`);
    }
  };
  scalar('command', 'command');
  if (
    pinned.command === current.command &&
    pinned.command_path !== undefined &&
    current.command_path !== undefined &&
    pinned.command_path !== current.command_path
  ) {
    out.push(`command now resolves to ${current.command_path} (pinned: ${pinned.command_path})`);
  }
  scalar('package', 'package');
  if (canonicalJson(pinned.args ?? []) !== canonicalJson(current.args ?? [])) {
    out.push(`args ${show(pinned.args ?? [])} → ${show(current.args ?? [])}`);
  }
  scalar('cwd', 'cwd');
  const envBefore = pinned.env ?? {};
  const envAfter = current.env ?? {};
  for (const name of sorted([...Object.keys(envBefore), ...Object.keys(envAfter)])) {
    const a = envBefore[name];
    const b = envAfter[name];
    if (a === b) continue;
    out.push(
      a === undefined
        ? `env ${name} added`
        : b === undefined
          ? `env ${name} removed`
          : `env ${name} changed value`,
    );
  }
  if (canonicalJson(pinned.env_vars ?? []) !== canonicalJson(current.env_vars ?? [])) {
    out.push(listChange('forwarded variables', pinned.env_vars ?? [], current.env_vars ?? []));
  }
  scalar('url', 'url');
  if (canonicalJson(pinned.header_names ?? []) !== canonicalJson(current.header_names ?? [])) {
    out.push(listChange('headers', pinned.header_names ?? [], current.header_names ?? []));
  }
  return out;
}

/** Whether two identities describe the same server launch (command paths compared if both known). */
export function sameIdentity(pinned: DefinitionIdentity, current: DefinitionIdentity): boolean {
  return identityChanges(pinned, current).length === 0;
}
