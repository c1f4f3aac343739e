/**
 * What a server says of itself besides its tools — the `initialize` instructions and serverInfo,
 * and the resources, resource templates and prompts it lists — as a pin records it (digests of
 * the real values, texts masked for review), and how it changed since its pin (pure).
 */
import type { PinnedText, ServerSurfacePin } from '../../config/lock/lock-format.js';
import { maskDeep } from '../../foundation/diagnostics/mask-secrets.js';
import { handshakeOf } from '../protocol/mcp-versions.js';
import { fieldChange, type PartChange } from './tool-drift.js';
import { canonicalPart, isRecord, jsonDigest } from './tool-surface.js';

/** What a server answered and listed, as plain JSON (unmasked). */
export interface ServerSelf {
  readonly serverInfo: Readonly<Record<string, unknown>>;
  readonly instructions?: string;
  readonly resources?: readonly Record<string, unknown>[];
  readonly resourceTemplates?: readonly Record<string, unknown>[];
  readonly prompts?: readonly Record<string, unknown>[];
}

type ListPart = 'resources' | 'resourceTemplates' | 'prompts';

/** The member naming each entry of a list, and the list's name in reports. */
const LISTS: Readonly<Record<ListPart, { readonly key: string; readonly label: string }>> = {
  resources: { key: 'uri', label: 'resources' },
  resourceTemplates: { key: 'uriTemplate', label: 'resource templates' },
  prompts: { key: 'name', label: 'prompts' },
};

function compareBytewise(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A list in a stable order (by the member naming its entries), so order alone is no change. */
function sortedList(list: readonly Record<string, unknown>[], key: string): unknown[] {
  const name = (entry: Record<string, unknown>): string =>
    typeof entry[key] === 'string' ? entry[key] : canonicalPart(entry);
  return [...list].sort((a, b) => compareBytewise(name(a), name(b)));
}

/** The pin of a JSON value: digest of the real value, canonical JSON of the masked one. */
function jsonPin(value: unknown, secrets: readonly string[]): PinnedText {
  return { digest: jsonDigest(value), text: canonicalPart(maskDeep(value, secrets)) };
}

/** What a pin records of a server's own surface; credential values are masked in every text. */
export function serverSurfaceOf(self: ServerSelf, secrets: readonly string[]): ServerSurfacePin {
  const instructions = self.instructions;
  const out: {
    serverInfo: PinnedText;
    instructions: PinnedText;
    resources?: PinnedText;
    resourceTemplates?: PinnedText;
    prompts?: PinnedText;
  } = {
    serverInfo: jsonPin(self.serverInfo, secrets),
    instructions: {
      digest: jsonDigest(instructions ?? null),
      ...(instructions !== undefined ? { text: maskDeep(instructions, secrets) } : {}),
    },
  };
  for (const part of Object.keys(LISTS) as ListPart[]) {
    const list = self[part];
    if (list !== undefined) out[part] = jsonPin(sortedList(list, LISTS[part].key), secrets);
  }
  return out;
}

function parsed(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A list as an object keyed by the member naming each entry, so changes name the entry. */
function keyed(value: unknown, key: string): unknown {
  if (!Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  value.forEach((entry: unknown, index) => {
    const name = isRecord(entry) && typeof entry[key] === 'string' ? entry[key] : `#${index}`;
    out[name] = entry;
  });
  return out;
}

/**
 * How the server's own surface differs from its pin: one change per part whose digest differs
 * (instructions, server info, resources, resource templates, prompts), empty when none does.
 */
export function compareServerWithPin(
  current: ServerSurfacePin,
  pinned: ServerSurfacePin,
): PartChange[] {
  const changes: PartChange[] = [];
  const same = (a: PinnedText | undefined, b: PinnedText | undefined): boolean =>
    a?.digest === b?.digest;
  if (!same(current.instructions, pinned.instructions)) {
    const change = fieldChange(
      'instructions',
      'instructions',
      pinned.instructions.text,
      current.instructions.text,
    );
    changes.push(
      pinned.instructions.text === current.instructions.text
        ? { ...change, summary: 'instructions changed (not in their shown text)' }
        : change,
    );
  }
  if (!same(current.serverInfo, pinned.serverInfo)) {
    changes.push(
      fieldChange(
        'serverInfo',
        'server info',
        parsed(pinned.serverInfo.text),
        parsed(current.serverInfo.text),
      ),
    );
  }
  for (const part of Object.keys(LISTS) as ListPart[]) {
    const before = pinned[part];
    const now = current[part];
    if (same(before, now)) continue;
    const { key, label } = LISTS[part];
    if (before === undefined || now === undefined) {
      changes.push({
        part,
        summary: `${label} ${now === undefined ? 'no longer listed' : 'listed (none when pinned)'}`,
        ...(before?.text !== undefined ? { pinned: before.text } : {}),
        ...(now?.text !== undefined ? { current: now.text } : {}),
      });
      continue;
    }
    const change = fieldChange(
      part,
      label,
      keyed(parsed(before.text), key),
      keyed(parsed(now.text), key),
    );
    changes.push({
      ...change,
      ...(before.text !== undefined ? { pinned: before.text } : {}),
      ...(now.text !== undefined ? { current: now.text } : {}),
    });
  }
  return changes;
}

/**
 * A change of the server's MCP era since its pin — `initialize` sessions (2025 revisions) against
 * `server/discover` (2026-07-28) — or undefined: a server that now speaks another era answers
 * and is reached differently. A newer revision of the same era is not drift (the client chose it).
 */
export function revisionChange(
  pinned: string | undefined,
  current: string | undefined,
): PartChange | undefined {
  if (pinned === undefined || pinned === '' || current === undefined || current === '') {
    return undefined;
  }
  const before = handshakeOf(pinned);
  const now = handshakeOf(current);
  if (before === now) return undefined;
  const era = (handshake: string | undefined): string =>
    handshake === 'discover'
      ? 'server/discover'
      : handshake === 'initialize'
        ? 'initialize'
        : 'unknown';
  return {
    part: 'protocolVersion',
    summary: `MCP revision changed: pinned ${pinned} (${era(before)}), now ${current} (${era(now)})`,
    pinned,
    current,
  };
}
