/**
 * Removes one server from a fragment's text (pure), keeping everything else as written: the
 * `[tool_mcp_servers.ID]` table and its sub-tables go, with the comment lines right above its
 * header. The result is checked by parsing: it must hold exactly the other data of the original.
 * Fragments that define the server another way (dotted keys, inline tables) are re-rendered from
 * their data instead, which drops their comments.
 */
import { parse, stringify } from 'smol-toml';

import { canonicalJson } from '../../config/snapshot/canonical-json.js';

export interface RemovedText {
  /** The fragment without the server. */
  readonly text: string;
  /** Whether the fragment defines no server any more. */
  readonly empty: boolean;
  /** Whether comments were lost (the entry was not written as its own tables). */
  readonly rewritten: boolean;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** What the fragment means without `id` (undefined when it does not parse). */
function withoutServer(text: string, id: string): Record<string, unknown> | undefined {
  let data: Record<string, unknown>;
  try {
    data = parse(text);
  } catch {
    return undefined;
  }
  const servers = data.tool_mcp_servers;
  if (typeof servers === 'object' && servers !== null && !Array.isArray(servers)) {
    const rest = Object.fromEntries(
      Object.entries(servers as Record<string, unknown>).filter(([key]) => key !== id),
    );
    return { ...data, tool_mcp_servers: rest };
  }
  return { ...data, tool_mcp_servers: {} };
}

function serverCount(data: Record<string, unknown>): number {
  const servers = data.tool_mcp_servers;
  return typeof servers === 'object' && servers !== null ? Object.keys(servers).length : 0;
}

function sameData(a: unknown, b: unknown): boolean {
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/** `text` without server `id`, or undefined when the text does not parse. */
export function removeEntryText(text: string, id: string): RemovedText | undefined {
  const wanted = withoutServer(text, id);
  if (wanted === undefined) return undefined;
  const empty = serverCount(wanted) === 0;
  const key = `(?:${escapeRegExp(id)}|"${escapeRegExp(id)}"|'${escapeRegExp(id)}')`;
  const ownHeader = new RegExp(`^\\s*\\[\\s*tool_mcp_servers\\s*\\.\\s*${key}\\s*(?:\\]|\\.)`);
  const anyHeader = /^\s*\[/;
  const lines = text.split('\n');
  const kept: string[] = [];
  let skipped: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (anyHeader.test(line)) {
      const own = ownHeader.test(line);
      if (own && !inside) {
        // the comment block right above the header belongs to the entry
        while (kept.length > 0 && /^\s*#/.test(kept[kept.length - 1] ?? '')) kept.pop();
      }
      if (!own && inside) {
        // ...and the comment block right above the next header belongs to that one
        const tail: string[] = [];
        while (skipped.length > 0 && /^\s*(#.*)?$/.test(skipped[skipped.length - 1] ?? '')) {
          tail.unshift(skipped.pop() ?? '');
        }
        kept.push(...tail);
      }
      inside = own;
      skipped = [];
    }
    if (inside) skipped.push(line);
    else kept.push(line);
  }
  let surgical = kept.join('\n').replace(/\n{3,}/g, '\n\n');
  if (text.endsWith('\n') && !surgical.endsWith('\n')) surgical += '\n';
  // the cut text must mean exactly the rest of the original (the server gone, nothing else)
  const check = withoutServer(surgical, `${id}\u0000`);
  if (check !== undefined && sameData(check, wanted)) {
    return { text: surgical, empty, rewritten: false };
  }
  return { text: `${stringify(wanted)}\n`, empty, rewritten: true };
}
