/**
 * Narrows the MCP servers a code-mode request names to what a role was granted (pure). In code
 * mode Codex sends no `tools` array; it names the process's MCP servers, whose tools the model
 * reaches through `exec`, in a developer text (`<tools>` … `Deferred tool namespaces:` then one
 * `- mcp__<name>` line each). A line for a server the role was not granted is removed, as
 * `filter-tools` removes its namespace from a `tools` array; with no role, every one is.
 */
import { serverOfNamespace, type CodexVersionFacts } from '../../config/codex/codex-versions.js';
import type { WireRole } from '../../config/compile/role-grants.js';
import { MESH_SERVER_NAME } from '../protocol/mesh-protocol.js';

const DEFERRED_HEADING = 'Deferred tool namespaces:';
const LINE = /^- (mcp__\S+)$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function mayName(role: WireRole | undefined, server: string | undefined): boolean {
  if (role === undefined || server === undefined) return false;
  return server === MESH_SERVER_NAME ? role.mesh : role.tools[server] !== undefined;
}

/**
 * `text` without the lines of the list under `heading` whose namespace (`nameOf` of the trimmed
 * line; undefined ends the list) `keep` refuses; `text` itself when it has no such heading.
 */
export function narrowListedNames(
  text: string,
  heading: string,
  nameOf: (line: string) => string | undefined,
  keep: (namespace: string) => boolean,
): string {
  if (!text.includes(heading)) return text;
  const lines: string[] = [];
  let inList = false;
  for (const line of text.split('\n')) {
    const namespace = nameOf(line.trim());
    inList = line.trim() === heading || (inList && namespace !== undefined);
    if (inList && namespace !== undefined && !keep(namespace)) continue;
    lines.push(line);
  }
  return lines.join('\n');
}

/** `text` without the deferred lines that `keep` refuses (`text` itself when none). */
function narrowText(text: string, keep: (namespace: string) => boolean): string {
  return narrowListedNames(text, DEFERRED_HEADING, (line) => LINE.exec(line)?.[1], keep);
}

/** Whether `role` may be named `namespace` of the process (`servers`); with no role, none. */
export function mayNameNamespace(
  role: WireRole | undefined,
  namespace: string,
  servers: readonly string[],
  codex: CodexVersionFacts,
): { readonly keep: boolean; readonly server: string | undefined } {
  const server = serverOfNamespace(codex, namespace, servers);
  return { keep: mayName(role, server), server };
}

/**
 * The request's `input` with every developer text's deferred MCP namespaces narrowed to `role`
 * (undefined: none kept), and the server IDs (or namespace names) removed; `input` itself when
 * nothing changed.
 */
export function narrowDeferredTools(
  input: unknown,
  role: WireRole | undefined,
  servers: readonly string[],
  codex: CodexVersionFacts,
): { input: unknown; removed: string[] } {
  if (!Array.isArray(input)) return { input, removed: [] };
  const removed: string[] = [];
  const keep = (namespace: string): boolean => {
    const named = mayNameNamespace(role, namespace, servers, codex);
    if (!named.keep) removed.push(named.server ?? namespace);
    return named.keep;
  };
  const out = input.map((item: unknown) => {
    if (!isRecord(item) || item.role !== 'developer' || !Array.isArray(item.content)) return item;
    const content = item.content.map((part: unknown) =>
      isRecord(part) && typeof part.text === 'string'
        ? { ...part, text: narrowText(part.text, keep) }
        : part,
    );
    return { ...item, content };
  });
  return removed.length === 0 ? { input, removed } : { input: out, removed };
}
