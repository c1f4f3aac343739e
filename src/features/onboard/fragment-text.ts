/**
 * Renders the registry fragment `tool-mcp add` writes (pure): one `[tool_mcp_servers.ID]` table in
 * schema version 8 with every offered tool in `enabled_tools`, each preceded by a comment holding
 * the tool's description, and a `prompt` override for each tool the server annotates destructive.
 * Everything the server said is external content: comments are single-line, free of control,
 * line-separator and bidirectional-override characters, and bounded in length.
 */
import { REGISTRY_SCHEMA_VERSION, type ApprovalMode } from '../../config/registry/types.js';

/** Longest description kept in a comment (characters, before the ellipsis). */
export const COMMENT_TEXT_MAX = 160;

/** One tool to list in `enabled_tools`. */
export interface FragmentTool {
  readonly name: string;
  /** The server's description (already masked); shown as a comment. */
  readonly description?: string;
  /** Annotated `destructiveHint: true`: gets `approval_mode = "prompt"`. */
  readonly destructive: boolean;
}

/** What the fragment defines: transport fields as the operator gave them, plus the tools. */
export type FragmentTarget =
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly envVars: readonly string[];
      readonly cwd?: string;
      /** Literal, non-secret environment values. */
      readonly env?: Readonly<Record<string, string>>;
    }
  | {
      readonly transport: 'streamable_http';
      readonly url: string;
      readonly bearerTokenEnvVar?: string;
      /** Header name → environment variable name. */
      readonly headerEnv: Readonly<Record<string, string>>;
      /** Literal, non-secret header values. */
      readonly headers?: Readonly<Record<string, string>>;
    };

export interface FragmentSpec {
  readonly id: string;
  readonly target: FragmentTarget;
  readonly tools: readonly FragmentTool[];
  readonly defaultApprovalMode: ApprovalMode;
  /** First comment lines (e.g. which server answered); sanitised like descriptions. */
  readonly header: readonly string[];
  readonly startupTimeoutSec?: number;
  readonly toolTimeoutSec?: number;
  /** The comment above `enabled_tools` (default: they are every tool the server offered). */
  readonly toolsComment?: string;
}

function table(
  lines: string[],
  name: string,
  values: Readonly<Record<string, string>> | undefined,
): void {
  if (values === undefined || Object.keys(values).length === 0) return;
  lines.push('', `[${name}]`);
  for (const [key, value] of Object.entries(values))
    lines.push(`${tomlKey(key)} = ${tomlString(value)}`);
}

/**
 * Characters never copied from a server into a comment: C0 and C1 controls (newlines included),
 * DEL, line and paragraph separators, and the bidirectional embedding, override and isolate marks
 * that can make text display differently from what it is.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE_COMMENT_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A UTF-16 surrogate without its partner (not encodable as UTF-8). */
export const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** External text made safe for one TOML comment line: whitespace runs collapsed, bounded. */
export function commentText(text: string, max: number = COMMENT_TEXT_MAX): string {
  const wellFormed = text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\ufffd');
  const flat = wellFormed.replace(UNSAFE_COMMENT_CHARS, ' ').replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = Array.from(flat).slice(0, max).join('');
  return `${cut.trimEnd()}…`;
}

/** A TOML basic string: JSON escapes, plus DEL, which TOML does not allow unescaped. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replaceAll('\u007f', '\\u007F');
}

/** A TOML key: bare when it can be, quoted otherwise. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function stringArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

/** The fragment's text. */
export function renderFragment(spec: FragmentSpec): string {
  const lines: string[] = spec.header.map((line) => `# ${commentText(line, 200)}`.trimEnd());
  const tableName = `tool_mcp_servers.${tomlKey(spec.id)}`;
  lines.push(`schema_version = ${REGISTRY_SCHEMA_VERSION}`, '', `[${tableName}]`);
  const target = spec.target;
  if (target.transport === 'stdio') {
    lines.push('transport = "stdio"', `command = ${tomlString(target.command)}`);
    if (target.args.length > 0) lines.push(`args = ${stringArray(target.args)}`);
    if (target.cwd !== undefined) lines.push(`cwd = ${tomlString(target.cwd)}`);
    if (target.envVars.length > 0) lines.push(`env_vars = ${stringArray(target.envVars)}`);
  } else {
    lines.push('transport = "streamable_http"', `url = ${tomlString(target.url)}`);
    if (target.bearerTokenEnvVar !== undefined) {
      lines.push(`bearer_token_env_var = ${tomlString(target.bearerTokenEnvVar)}`);
    }
  }
  lines.push(
    `# ${commentText(spec.toolsComment ?? 'every tool the server offered when it was added; remove the ones no profile may ever get', 200)}`,
    'enabled_tools = [',
  );
  for (const tool of spec.tools) {
    const about = tool.description !== undefined ? commentText(tool.description) : '';
    lines.push(`  # ${commentText(tool.name, 80)}${about !== '' ? `: ${about}` : ''}`);
    lines.push(`  ${tomlString(tool.name)},`);
  }
  lines.push(']', `default_tools_approval_mode = ${tomlString(spec.defaultApprovalMode)}`);
  if (spec.startupTimeoutSec !== undefined) {
    lines.push(`startup_timeout_sec = ${String(spec.startupTimeoutSec)}`);
  }
  if (spec.toolTimeoutSec !== undefined) {
    lines.push(`tool_timeout_sec = ${String(spec.toolTimeoutSec)}`);
  }
  if (target.transport === 'stdio') table(lines, `${tableName}.env`, target.env);
  else {
    table(lines, `${tableName}.http_headers`, target.headers);
    table(lines, `${tableName}.env_http_headers`, target.headerEnv);
  }
  for (const tool of spec.tools.filter((t) => t.destructive)) {
    lines.push(
      '',
      '# the server annotates this tool as destructive: always ask before calling it',
      `[${tableName}.tools.${tomlKey(tool.name)}]`,
      'approval_mode = "prompt"',
    );
  }
  return `${lines.join('\n')}\n`;
}
