/**
 * Compares a tool's current surface with its pin (pure) and describes what changed: which field
 * (description, input schema, annotations, and with a lock_version 3 pin every other field as
 * listed: title, output schema, `_meta`, unknown ones) and how — a short word-diff of a text,
 * the JSON paths that changed in a schema, the annotation values before and after.
 */
import type { PinnedTool } from '../../config/lock/lock-format.js';
import { terminalSafe } from '../../foundation/text/terminal-safe.js';
import {
  canonicalPart,
  isRecord,
  listedDefinition,
  surfaceDigests,
  type ToolSurface,
} from './tool-surface.js';

export interface PartChange {
  /** The field that changed (`inputSchema`, `title`, `_meta`, `instructions`, …), or `surface`. */
  readonly part: string;
  /** One line saying what changed. */
  readonly summary: string;
  /** The pinned value as text (description text or canonical JSON), when recorded. */
  readonly pinned?: string;
  /** The current value as text. */
  readonly current?: string;
}

export interface ToolDrift {
  readonly tool: string;
  readonly changes: readonly PartChange[];
}

/** Characters of unchanged text shown around a description change. */
const CONTEXT = 30;
/** Longest changed stretch shown per side. */
const MAX_CHANGED = 160;
/** Most schema/annotation paths listed. */
const MAX_PATHS = 8;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** Terminal-safe, so newlines, control and bidi characters of a description stay on one line. */
const visible = (text: string): string => terminalSafe(text);

/**
 * A one-line word-diff: `…context[-removed-]{+added+}context…`, from the common prefix and
 * suffix of the two texts.
 */
export function shortDiff(before: string, after: string): string {
  let prefix = 0;
  const limit = Math.min(before.length, after.length);
  while (prefix < limit && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    before[before.length - 1 - suffix] === after[after.length - 1 - suffix]
  ) {
    suffix++;
  }
  const removed = before.slice(prefix, before.length - suffix);
  const added = after.slice(prefix, after.length - suffix);
  const lead =
    prefix > CONTEXT ? `…${before.slice(prefix - CONTEXT, prefix)}` : before.slice(0, prefix);
  const tailStart = before.length - suffix;
  const tail =
    suffix > CONTEXT ? `${before.slice(tailStart, tailStart + CONTEXT)}…` : before.slice(tailStart);
  const parts = [visible(lead)];
  if (removed !== '') parts.push(`[-${visible(clip(removed, MAX_CHANGED))}-]`);
  if (added !== '') parts.push(`{+${visible(clip(added, MAX_CHANGED))}+}`);
  parts.push(visible(tail));
  return parts.join('');
}

function pointer(path: readonly string[]): string {
  return path.length === 0
    ? '/'
    : path.map((p) => `/${p.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function scalar(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') {
    const text = JSON.stringify(value);
    return text.length <= 60 ? text : undefined;
  }
  return undefined;
}

/** The JSON paths where two JSON values differ, each with what happened there. */
export function jsonChanges(before: unknown, after: unknown, path: string[] = []): string[] {
  if (isRecord(before) && isRecord(after)) {
    const out: string[] = [];
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const key of keys) {
      const here = [...path, key];
      if (!(key in before)) {
        const value = scalar(after[key]);
        out.push(`${pointer(here)} added${value !== undefined ? ` (${value})` : ''}`);
      } else if (!(key in after)) out.push(`${pointer(here)} removed`);
      else out.push(...jsonChanges(before[key], after[key], here));
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return before.flatMap((item: unknown, i) => jsonChanges(item, after[i], [...path, String(i)]));
  }
  if (canonicalPart(before) === canonicalPart(after)) return [];
  const from = scalar(before);
  const to = scalar(after);
  return [
    `${pointer(path)} changed${from !== undefined && to !== undefined ? ` (${from} → ${to})` : ''}`,
  ];
}

function listPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_PATHS).join(', ');
  return paths.length > MAX_PATHS ? `${shown}, and ${paths.length - MAX_PATHS} more` : shown;
}

function parseJson(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function descriptionChange(tool: ToolSurface, pinned: PinnedTool): PartChange {
  const now = tool.description;
  const before = pinned.description;
  const texts = {
    ...(before !== undefined ? { pinned: before } : {}),
    ...(now !== undefined ? { current: now } : {}),
  };
  if (now === undefined) return { part: 'description', summary: 'description removed', ...texts };
  if (pinned.descriptionDigest === undefined && before === undefined) {
    return { part: 'description', summary: 'description added', ...texts };
  }
  if (before === undefined) {
    return { part: 'description', summary: 'description changed', ...texts };
  }
  return {
    part: 'description',
    summary: `description changed: ${shortDiff(before, now)}`,
    ...texts,
  };
}

function jsonPartChange(
  part: 'inputSchema' | 'annotations',
  label: string,
  current: unknown,
  pinnedText: string | undefined,
  pinnedDigest: string | undefined,
): PartChange {
  const currentText = current === undefined ? undefined : canonicalPart(current);
  const texts = {
    ...(pinnedText !== undefined ? { pinned: pinnedText } : {}),
    ...(currentText !== undefined ? { current: currentText } : {}),
  };
  if (current === undefined) return { part, summary: `${label} removed`, ...texts };
  if (pinnedDigest === undefined && pinnedText === undefined) {
    return { part, summary: `${label} added`, ...texts };
  }
  const before = parseJson(pinnedText);
  if (!before.ok) return { part, summary: `${label} changed`, ...texts };
  const paths = jsonChanges(before.value, current);
  return {
    part,
    summary: paths.length === 0 ? `${label} changed` : `${label} changed at ${listPaths(paths)}`,
    ...texts,
  };
}

/** How fields are named in summaries (others by their own name). */
const FIELD_LABELS: Readonly<Record<string, string>> = { inputSchema: 'input schema' };
/** Fields listed first, in this order; the rest follow sorted. */
const FIELD_ORDER = ['description', 'inputSchema', 'annotations'];

/** The text of a value as reports show it: a string itself, anything else canonical JSON. */
function textOfValue(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalPart(value);
}

/** What changed in one field (`label` names it), from its value before to its value now. */
export function fieldChange(
  part: string,
  label: string,
  before: unknown,
  after: unknown,
): PartChange {
  const pinnedText = textOfValue(before);
  const currentText = textOfValue(after);
  const texts = {
    ...(pinnedText !== undefined ? { pinned: pinnedText } : {}),
    ...(currentText !== undefined ? { current: currentText } : {}),
  };
  if (after === undefined) return { part, summary: `${label} removed`, ...texts };
  if (typeof after === 'string' && (before === undefined || typeof before === 'string')) {
    const verb = before === undefined ? 'added' : 'changed';
    return { part, summary: `${label} ${verb}: ${shortDiff(before ?? '', after)}`, ...texts };
  }
  if (before === undefined) return { part, summary: `${label} added`, ...texts };
  const paths = jsonChanges(before, after);
  return {
    part,
    summary: paths.length === 0 ? `${label} changed` : `${label} changed at ${listPaths(paths)}`,
    ...texts,
  };
}

/** Every field that differs between two JSON objects, known fields first (`name` excluded). */
export function objectChanges(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  labels: Readonly<Record<string, string>> = FIELD_LABELS,
  order: readonly string[] = FIELD_ORDER,
): PartChange[] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((key) => key !== 'name')
    .sort((a, b) => {
      const ia = order.includes(a) ? order.indexOf(a) : order.length;
      const ib = order.includes(b) ? order.indexOf(b) : order.length;
      return ia !== ib ? ia - ib : a < b ? -1 : a > b ? 1 : 0;
    });
  const changes: PartChange[] = [];
  for (const key of keys) {
    const was = Object.hasOwn(before, key) ? before[key] : undefined;
    const now = Object.hasOwn(after, key) ? after[key] : undefined;
    if (textOfValue(was) === textOfValue(now) && typeof was === typeof now) continue;
    changes.push(fieldChange(key, labels[key] ?? key, was, now));
  }
  return changes;
}

/**
 * What changed in `tool` since it was pinned, or `undefined` when it still matches: every field
 * as listed when the pin recorded them (`listedDigest`), else the known surface's digest.
 * `tool` must already be masked for display; `digests` are those of the unmasked surface.
 */
export function compareWithPin(
  tool: ToolSurface,
  digests: ReturnType<typeof surfaceDigests>,
  pinned: PinnedTool,
): ToolDrift | undefined {
  if (pinned.listedDigest !== undefined) {
    if (digests.listed === pinned.listedDigest) return undefined;
    const before = parseJson(pinned.listed);
    const changes =
      before.ok && isRecord(before.value)
        ? objectChanges(before.value, listedDefinition(tool))
        : [];
    return {
      tool: tool.name,
      changes:
        changes.length > 0
          ? changes
          : [{ part: 'surface', summary: 'the tool definition changed (not in its shown text)' }],
    };
  }
  if (digests.digest === pinned.digest) return undefined;
  // per-part digests tell exactly which part changed; without them compare the recorded texts
  const hasPartDigests = pinned.inputSchemaDigest !== undefined;
  const textOf = (value: unknown): string | undefined =>
    value === undefined ? undefined : canonicalPart(value);
  const differs = (
    now: string | undefined,
    before: string | undefined,
    nowText: string | undefined,
    beforeText: string | undefined,
  ): boolean => (hasPartDigests ? now !== before : nowText !== beforeText);
  const changes: PartChange[] = [];
  if (
    differs(digests.description, pinned.descriptionDigest, tool.description, pinned.description)
  ) {
    changes.push(descriptionChange(tool, pinned));
  }
  if (
    differs(
      digests.inputSchema,
      pinned.inputSchemaDigest,
      textOf(tool.inputSchema),
      pinned.inputSchema,
    )
  ) {
    changes.push(
      jsonPartChange(
        'inputSchema',
        'input schema',
        tool.inputSchema,
        pinned.inputSchema,
        pinned.inputSchemaDigest,
      ),
    );
  }
  if (
    differs(
      digests.annotations,
      pinned.annotationsDigest,
      textOf(tool.annotations),
      pinned.annotations,
    )
  ) {
    changes.push(
      jsonPartChange(
        'annotations',
        'annotations',
        tool.annotations,
        pinned.annotations,
        pinned.annotationsDigest,
      ),
    );
  }
  if (changes.length > 0) return { tool: tool.name, changes };
  return {
    tool: tool.name,
    changes: [{ part: 'surface', summary: 'the tool surface changed (no detail was recorded)' }],
  };
}
