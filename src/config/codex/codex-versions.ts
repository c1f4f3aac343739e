/**
 * The supported Codex versions and their measured behaviour, in one table: every behaviour of
 * codex-mmo that depends on the Codex version reads a row of it (which config keys Codex accepts,
 * when an approval mode asks, whether native roles are isolated, app-server method names, the
 * Responses request shape). Pure data plus the questions code asks of it; `docs/codex-versions.md`
 * and `test/config/codex/version-facts.test.ts` describe and re-measure every row.
 */
import type { ApprovalMode } from '../registry/types.js';

/**
 * When approval mode `auto` asks before an MCP tool call. Both rules skip approval for a tool
 * claiming `destructiveHint: false` and `openWorldHint: false` together ("closed world"), so
 * neither is exactly `writes`.
 */
export type AutoApprovalRule =
  /**
   * Asks when `destructiveHint` is true; otherwise does not ask when `readOnlyHint` is true or
   * the tool is closed world; otherwise asks.
   */
  | 'destructive-overrides-read-only'
  /** Does not ask when `readOnlyHint` is true or the tool is closed world; otherwise asks. */
  | 'read-only-or-closed-world';

/**
 * Which `[mcp_servers.NAME]` names Codex can start. Every version offers a server to the model as
 * namespace `mcp__<NAME with each character outside [A-Za-z0-9_] replaced by _>`, case kept and
 * nothing appended (`offeredNamespace`); when two servers of one config end up with the same
 * name, each gets a hashed suffix instead (`mcp__a_b_<12 hex>`).
 */
export type ServerNameRule =
  /** A name outside `^[a-zA-Z0-9_-]+$` loads but the server fails at startup. */
  | 'fails-outside-pattern'
  /** A name outside `^[a-zA-Z0-9_-]+$` starts and is offered with its characters replaced. */
  | 'maps-outside-pattern';

/** Where a Responses API request carries Codex's base instructions. */
export type InstructionsPlacement = 'instructions-field' | 'first-developer-message';

/** How a `function_call_output` item carries the tool's output. */
export type ToolOutputShape = 'string' | 'input-text-array';

/** The shape of the Responses API requests Codex sends to its model provider. */
export interface ResponsesRequestShape {
  readonly instructions: InstructionsPlacement;
  /** Shape Codex uses for a tool's output; readers must accept every shape of every row. */
  readonly toolOutput: ToolOutputShape;
  /** Whether the `update_plan` tool is offered without `[tools.update_plan] enabled = true`. */
  readonly updatePlanByDefault: boolean;
}

/** One supported Codex minor series and its measured behaviour. */
export interface CodexVersionFacts {
  /** `major.minor`, e.g. `0.171`; a version belongs to the row whose series it starts with. */
  readonly series: string;
  /** The exact release the row was measured on. */
  readonly measured: string;
  /** Every key Codex accepts in an `[mcp_servers.NAME]` table (with `--strict-config`). */
  readonly mcpServerKeys: readonly string[];
  /** The `mcpServerKeys` that say how to reach the server (launch, endpoint, headers). */
  readonly mcpTransportKeys: readonly string[];
  /**
   * Top-level config keys this version accepts that some other row rejects. Top-level keys that
   * appear in no row's list are accepted by every row.
   */
  readonly versionTopLevelKeys: readonly string[];
  readonly autoApproval: AutoApprovalRule;
  /** Whether a native sub-agent gets its own role file's MCP servers, filters and approval modes. */
  readonly nativeRolesIsolated: boolean;
  /**
   * Whether the model wire was measured narrowing each native role's offered tools to its grants
   * on this series (both request shapes, thread headers, HTTP with websockets off).
   */
  readonly modelWireNarrows: boolean;
  /**
   * Whether, with `shell_environment_policy` unset, every variable of the Codex process reaches
   * the model's shell.
   */
  readonly shellInheritsAllByDefault: boolean;
  /** Whether `codex mcp-server` exists. */
  readonly hasMcpServerCommand: boolean;
  /** The app-server method that drops the last turns of a thread. */
  readonly rollbackMethod: 'thread/rollback' | 'thread/revert';
  readonly serverNames: ServerNameRule;
  /** Whether unknown config keys are warned about (they are ignored without `--strict-config`). */
  readonly warnsUnknownKeys: boolean;
  /**
   * Whether `<cwd>/.codex/config.toml` is loaded for an untrusted directory when the root runs
   * with `workspace-write`.
   */
  readonly loadsUntrustedProjectConfig: boolean;
  /**
   * Whether the interactive TUI asks about its folder at every start unless the folder is marked
   * trusted (its folder-access screen; marked untrusted or unmarked alike).
   */
  readonly tuiAsksUnlessTrusted: boolean;
  /** Whether the interactive TUI starts an app-server daemon that outlives it. */
  readonly tuiLeavesAppServerDaemon: boolean;
  /**
   * What the sandbox creates, empty, in the working directory on the host while a sandboxed
   * command runs (the mount points of the paths it keeps read-only in a writable root); a command
   * killed with SIGKILL, or interrupted on 0.149, leaves them there.
   */
  readonly sandboxMountPoints: readonly string[];
  /**
   * Arguments that make the interactive TUI run its app-server as its own child instead of a
   * shared detached daemon, so the session's supervisor owns every process (empty when the TUI
   * starts no daemon).
   */
  readonly tuiOwnAppServerArgs: readonly string[];
  /**
   * How the npm launcher (`bin/codex.js`) starts the native binary, which sessions start directly:
   * its path under `vendor/<target triple>/` (when `codex-package.json` names none) and the
   * variables the launcher sets. The launcher adds nothing to PATH: the binary finds its bundled
   * tools next to itself.
   */
  readonly nativeLaunch: {
    readonly entry: string;
    readonly launcherEnv: readonly string[];
  };
  readonly responses: ResponsesRequestShape;
  /** Codex's MCP 2026-07-28 client, behind a feature flag (measured with `codex features list`). */
  readonly mcp2026: Mcp2026Client;
}

/**
 * How a Codex version speaks MCP 2026-07-28. With the feature on, over Streamable HTTP it sends
 * `server/discover` first (header `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method`), then every
 * request with `Mcp-Method`/`Mcp-Name` and the `_meta` envelope, no session; it falls back to
 * `initialize` only when discovery is answered JSON-RPC -32601. Over stdio the feature also needs
 * `stdioEnv = "2026-07-28"` in that server's `env` table.
 */
export interface Mcp2026Client {
  /** The `[features]` key that turns it on. */
  readonly feature: string;
  /** Whether the feature is on when no config sets it. */
  readonly onByDefault: boolean;
  /** Its stage in `codex features list`. */
  readonly stage: string;
  /** The server `env` variable a stdio server also needs. */
  readonly stdioEnv: string;
}

/** The MCP 2026-07-28 client of every supported version (measured on 0.149.1 and 0.171.0). */
const MCP_2026_CLIENT: Mcp2026Client = {
  feature: 'mcp_2026_07_28',
  onByDefault: false,
  stage: 'under development',
  stdioEnv: 'CODEX_MCP_PROTOCOL_VERSION',
};

/** What the launcher of every supported version does (measured on 0.149.1 and 0.171.0). */
const NPM_LAUNCHER = {
  entry: 'bin/codex',
  launcherEnv: ['CODEX_MANAGED_PACKAGE_ROOT', 'CODEX_MANAGED_BY_NPM'],
} as const;

/** `[mcp_servers.NAME]` keys of Codex 0.149 that say how to reach the server. */
const MCP_TRANSPORT_KEYS_0149: readonly string[] = [
  // stdio
  'command',
  'args',
  'env',
  'env_vars',
  'cwd',
  // streamable HTTP
  'url',
  'bearer_token_env_var',
  'http_headers',
  'env_http_headers',
  'http_headers_helper',
];

/** `[mcp_servers.NAME]` keys Codex 0.149 accepts (measured; see docs/codex-versions.md). */
const MCP_SERVER_KEYS_0149: readonly string[] = [
  ...MCP_TRANSPORT_KEYS_0149,
  // streamable HTTP authorization
  'auth',
  'oauth',
  'oauth_resource',
  // both
  'enabled',
  'required',
  'enabled_tools',
  'disabled_tools',
  'default_tools_approval_mode',
  'tools',
  'startup_timeout_sec',
  'startup_timeout_ms',
  'tool_timeout_sec',
  'supports_parallel_tool_calls',
  'scopes',
  'environment_id',
  'omit_tools_from',
  'name',
];

/** Codex 0.171.x, the current release and the default. */
const CODEX_0171: CodexVersionFacts = {
  series: '0.171',
  measured: '0.171.0',
  mcpServerKeys: [...MCP_SERVER_KEYS_0149, 'startup_readiness', 'tool_input_schema_max_bytes'],
  mcpTransportKeys: MCP_TRANSPORT_KEYS_0149,
  versionTopLevelKeys: ['mcp_optional_startup_grace_ms'],
  autoApproval: 'read-only-or-closed-world',
  nativeRolesIsolated: false,
  modelWireNarrows: true,
  shellInheritsAllByDefault: true,
  hasMcpServerCommand: false,
  rollbackMethod: 'thread/revert',
  serverNames: 'maps-outside-pattern',
  warnsUnknownKeys: true,
  loadsUntrustedProjectConfig: false,
  tuiAsksUnlessTrusted: true,
  tuiLeavesAppServerDaemon: true,
  sandboxMountPoints: ['.agents', '.aws', '.codex', '.git'],
  tuiOwnAppServerArgs: ['--no-daemon'],
  nativeLaunch: NPM_LAUNCHER,
  responses: {
    instructions: 'first-developer-message',
    toolOutput: 'input-text-array',
    updatePlanByDefault: false,
  },
  mcp2026: MCP_2026_CLIENT,
};

/** Codex 0.149.x. */
const CODEX_0149: CodexVersionFacts = {
  series: '0.149',
  measured: '0.149.1',
  mcpServerKeys: MCP_SERVER_KEYS_0149,
  mcpTransportKeys: MCP_TRANSPORT_KEYS_0149,
  versionTopLevelKeys: [],
  autoApproval: 'destructive-overrides-read-only',
  nativeRolesIsolated: false,
  modelWireNarrows: true,
  shellInheritsAllByDefault: true,
  hasMcpServerCommand: true,
  rollbackMethod: 'thread/rollback',
  serverNames: 'fails-outside-pattern',
  warnsUnknownKeys: false,
  loadsUntrustedProjectConfig: true,
  tuiAsksUnlessTrusted: false,
  tuiLeavesAppServerDaemon: false,
  sandboxMountPoints: ['.agents', '.codex', '.git'],
  tuiOwnAppServerArgs: [],
  nativeLaunch: NPM_LAUNCHER,
  responses: {
    instructions: 'instructions-field',
    toolOutput: 'string',
    updatePlanByDefault: true,
  },
  mcp2026: MCP_2026_CLIENT,
};

/** Supported Codex versions, newest first: the first row is the default and what users install. */
export const CODEX_VERSIONS: readonly CodexVersionFacts[] = [CODEX_0171, CODEX_0149];

/** The newest supported row: what rendering assumes when no Codex version is known. */
export const NEWEST_CODEX: CodexVersionFacts = CODEX_0171;

/** What a detected Codex version is to codex-mmo. */
export interface CodexVersionClass {
  /** The version string as given (`0.171.0`). */
  readonly version: string;
  /** Its `major.minor` (`0.171`), or undefined when the string has no version number. */
  readonly series: string | undefined;
  /** Whether its series is a row of the table. */
  readonly supported: boolean;
  /**
   * The row whose behaviour applies: its own row when supported; otherwise the newest row not
   * newer than it (the oldest row for a version older than every row, the newest when unknown).
   */
  readonly facts: CodexVersionFacts;
}

function parseSeries(version: string): [number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.|$|[-+])/.exec(version.trim());
  if (match === null) return undefined;
  return [Number(match[1]), Number(match[2])];
}

function compareSeries(a: [number, number], b: [number, number]): number {
  return a[0] !== b[0] ? a[0] - b[0] : a[1] - b[1];
}

/** Classifies a version string (`0.171.0`, `0.149.1-alpha.2`) against the table. */
export function classifyCodexVersion(
  version: string,
  table: readonly CodexVersionFacts[] = CODEX_VERSIONS,
): CodexVersionClass {
  const parsed = parseSeries(version);
  const newest = table[0] ?? NEWEST_CODEX;
  if (parsed === undefined) return { version, series: undefined, supported: false, facts: newest };
  const series = `${parsed[0]}.${parsed[1]}`;
  const own = table.find((row) => row.series === series);
  if (own !== undefined) return { version, series, supported: true, facts: own };
  const notNewer = table.find((row) => {
    const rowSeries = parseSeries(row.series);
    return rowSeries !== undefined && compareSeries(rowSeries, parsed) <= 0;
  });
  return { version, series, supported: false, facts: notNewer ?? table.at(-1) ?? newest };
}

/** The facts that apply to a version string (see `classifyCodexVersion`). */
export function codexFacts(version: string | undefined): CodexVersionFacts {
  return version === undefined ? NEWEST_CODEX : classifyCodexVersion(version).facts;
}

/** `0.149.x, 0.171.x`: the supported series, oldest first, for messages. */
export function supportedSeriesText(table: readonly CodexVersionFacts[] = CODEX_VERSIONS): string {
  return [...table]
    .reverse()
    .map((row) => `${row.series}.x`)
    .join(', ');
}

/** Whether this version accepts `key` in an `[mcp_servers.NAME]` table. */
export function acceptsMcpServerKey(facts: CodexVersionFacts, key: string): boolean {
  return facts.mcpServerKeys.includes(key);
}

/** Top-level keys whose acceptance depends on the version (the union of every row's list). */
export function versionGatedTopLevelKeys(
  table: readonly CodexVersionFacts[] = CODEX_VERSIONS,
): readonly string[] {
  return [...new Set(table.flatMap((row) => row.versionTopLevelKeys))].sort();
}

/** Whether this version accepts top-level key `key` (keys no row gates are always accepted). */
export function acceptsTopLevelKey(facts: CodexVersionFacts, key: string): boolean {
  return !versionGatedTopLevelKeys().includes(key) || facts.versionTopLevelKeys.includes(key);
}

/** `[mcp_servers.NAME]` keys some supported row accepts and another rejects. */
export function versionGatedMcpServerKeys(
  table: readonly CodexVersionFacts[] = CODEX_VERSIONS,
): readonly string[] {
  const all = new Set(table.flatMap((row) => row.mcpServerKeys));
  return [...all].filter((key) => table.some((row) => !row.mcpServerKeys.includes(key))).sort();
}

/** The behaviour hints of an MCP tool that approval modes read. */
export interface ApprovalHints {
  readonly readOnlyHint?: unknown;
  readonly destructiveHint?: unknown;
  readonly openWorldHint?: unknown;
}

/** Whether this Codex asks the user before calling a tool with these annotations in this mode. */
export function approvalModeAsks(
  facts: CodexVersionFacts,
  mode: ApprovalMode,
  annotations: ApprovalHints | undefined,
): boolean {
  const readOnly = annotations?.readOnlyHint === true;
  switch (mode) {
    case 'prompt':
      return true;
    case 'approve':
      return false;
    case 'writes':
      return !readOnly;
    case 'auto': {
      const destructive = annotations?.destructiveHint;
      if (facts.autoApproval === 'destructive-overrides-read-only' && destructive === true) {
        return true;
      }
      if (readOnly) return false;
      return destructive !== false || annotations?.openWorldHint !== false;
    }
  }
}

const CODEX_NAME_PATTERN = /^[a-zA-Z0-9_-]+$/;

/** The prefix of every namespace under which Codex offers an MCP server's tools to the model. */
export const MCP_NAMESPACE_PREFIX = 'mcp__';

/**
 * The namespace name (without `mcp__`) under which this Codex offers server `id` to the model
 * when no other server of the config maps to the same name, or undefined when this version
 * cannot start a server of that name. Case is kept, nothing is appended (`Mixed-Case` is
 * `Mixed_Case`, `a__` is `a__`).
 */
export function offeredServerName(facts: CodexVersionFacts, id: string): string | undefined {
  if (!CODEX_NAME_PATTERN.test(id) && facts.serverNames === 'fails-outside-pattern') {
    return undefined;
  }
  return id.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * The namespace of a Responses request's `tools` under which this Codex offers server `id`
 * (`everything-http` as `mcp__everything_http`), or undefined when it cannot start a server of
 * that name. The one mapping from server IDs to namespaces: smoke, the model wire and scripts
 * read namespaces back to servers with it (`serverOfNamespace`).
 */
export function offeredNamespace(facts: CodexVersionFacts, id: string): string | undefined {
  const name = offeredServerName(facts, id);
  return name === undefined ? undefined : `${MCP_NAMESPACE_PREFIX}${name}`;
}

/**
 * The server of `ids` (the servers of one Codex process) that this Codex offers under
 * `namespace`, exactly: undefined when no server or more than one maps to it, so a namespace is
 * never read as a server it does not stand for (a hashed `mcp__<name>_<hex>` stands for none).
 */
export function serverOfNamespace(
  facts: CodexVersionFacts,
  namespace: string,
  ids: readonly string[],
): string | undefined {
  const found = ids.filter((id) => offeredNamespace(facts, id) === namespace);
  return new Set(found).size === 1 ? found[0] : undefined;
}

/**
 * A flat function name `mcp__<name>__<tool>` read back to [server, tool]: undefined unless
 * exactly one server of `ids` has a namespace that, with `__`, begins the name (with servers
 * `a` and `a__`, `mcp__a____t` could be either and stands for neither).
 */
export function serverOfFlatName(
  facts: CodexVersionFacts,
  name: string,
  ids: readonly string[],
): [string, string] | undefined {
  const found = new Map<string, string>();
  for (const id of ids) {
    const namespace = offeredNamespace(facts, id);
    if (namespace !== undefined && name.startsWith(`${namespace}__`)) {
      found.set(id, name.slice(namespace.length + 2));
    }
  }
  const [only] = found;
  return found.size === 1 && only !== undefined ? only : undefined;
}

/**
 * Groups of server IDs of one config that this Codex would offer under the same name (each
 * group sorted, two or more IDs): Codex then gives each a hashed suffix, so none of them is
 * offered under its predictable name. Empty when every ID keeps a name of its own.
 */
export function offeredNameCollisions(
  facts: CodexVersionFacts,
  ids: readonly string[],
): string[][] {
  const byName = new Map<string, string[]>();
  for (const id of new Set(ids)) {
    const name = offeredServerName(facts, id);
    if (name === undefined) continue;
    byName.set(name, [...(byName.get(name) ?? []), id]);
  }
  return [...byName.values()].filter((group) => group.length > 1).map((group) => group.sort());
}

/**
 * The name under which Codex offers an MCP server's tool `tool` inside the server's namespace:
 * every character outside `[A-Za-z0-9_]` replaced by `_` (`take-note` is offered as
 * `take_note`). Every version in the table maps tool names this way.
 */
export function offeredToolName(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * Whether `namespace` (a `mcp__…` tool namespace of a Responses request) is where this Codex
 * offers server `id`: exactly `offeredNamespace(id)`, or, when another server of the config maps
 * to the same name, `mcp__<name>_<12 hex digits>`. `hashed` says which form to accept.
 */
export function isOfferedNamespace(
  facts: CodexVersionFacts,
  namespace: string,
  id: string,
  hashed: boolean,
): boolean {
  const exact = offeredNamespace(facts, id);
  if (exact === undefined || !namespace.startsWith(exact)) return false;
  const rest = namespace.slice(exact.length);
  return hashed ? /^_[0-9a-f]{12}$/.test(rest) : rest === '';
}
