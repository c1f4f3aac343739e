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

/** `text` without the deferred lines that `keep` refuses (`text` itself when none). */
function narrowText(text: string, keep: (namespace: string) => boolean): string {
  if (!text.includes(DEFERRED_HEADING)) return text;
  const lines: string[] = [];
  let inList = false;
  for (const line of text.split('\n')) {
    const namespace = LINE.exec(line.trim())?.[1];
    inList = line.trim() === DEFERRED_HEADING || (inList && namespace !== undefined);
    if (inList && namespace !== undefined && !keep(namespace)) continue;
    lines.push(line);
  }
  return lines.join('\n');
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
    const server = serverOfNamespace(codex, namespace, servers);
    if (mayName(role, server)) return true;
    removed.push(server ?? namespace);
    return false;
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
