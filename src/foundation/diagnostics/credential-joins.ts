/**
 * The texts plain JSON data makes when its values are joined (pure), each with the places its
 * parts come from: an array's items (as text, and as characters or UTF-8 bytes when all are
 * character codes), one key's values across an array's objects (content items' `text`), and the
 * whole value's strings, numbers and keys in order (keys with their values; integers as characters).
 */
import { isSeparator, numberTexts } from './credential-text.js';

/** Arrays shorter than this are not decoded as character codes (too short to spell a value). */
export const MIN_CODE_ARRAY = 4;
const MAX_CODE_POINT = 0x10ffff;

/** One place a part of a joined text comes from. */
export interface Part {
  /** The object or array holding it. */
  readonly holder: Record<string, unknown> | unknown[];
  /** Its index or key in the holder. */
  readonly slot: string | number;
  /** A string or number value, or the key itself. */
  readonly kind: 'value' | 'key';
}

/** A joined text: its parts, and the text the parts `from` … `to` (exclusive) make. */
export interface Join {
  readonly parts: readonly Part[];
  text(from: number, to: number): string;
}

const isCode = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_CODE_POINT;

/**
 * `text` with its middle left out (as one NUL, which no form of a value contains) when more than
 * `span` non-separator characters lie on either side of it: a value met across a join needs only
 * the ends of a part that is clean by itself.
 */
export function clipText(text: string, span: number): string {
  if (text.length <= 2 * span + 1) return text;
  let head = 0;
  for (let seen = 0; head < text.length && seen < span; head++) {
    if (!isSeparator(text.charCodeAt(head))) seen++;
  }
  let tail = text.length;
  for (let seen = 0; tail > head && seen < span; tail--) {
    if (!isSeparator(text.charCodeAt(tail - 1))) seen++;
  }
  return tail - head <= 1 ? text : `${text.slice(0, head)}\u0000${text.slice(tail)}`;
}

function joined(parts: Part[], texts: string[]): Join {
  return { parts, text: (from, to) => texts.slice(from, to).join('') };
}

/** The code points `codes` spell (in chunks, so a long array does not overflow the stack). */
function spell(codes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < codes.length; i += 8192)
    out += String.fromCodePoint(...codes.slice(i, i + 8192));
  return out;
}

/** The joins of one array: its scalar items as text, as characters or bytes, and by key. */
function arrayJoins(items: unknown[], clip: (t: string) => string, out: Join[]): void {
  const slots = items.flatMap((v, i) =>
    typeof v === 'string' || typeof v === 'number' ? [i] : [],
  );
  if (slots.length >= 2) {
    const texts = slots.map((i) => {
      const v = items[i];
      return typeof v === 'number' ? (numberTexts(v)[0] ?? '') : clip(v as string);
    });
    out.push(
      joined(
        slots.map((slot) => ({ holder: items, slot, kind: 'value' })),
        texts,
      ),
    );
  }
  if (items.length >= MIN_CODE_ARRAY && items.every(isCode)) {
    const codes = items;
    const parts: Part[] = codes.map((_, slot) => ({ holder: items, slot, kind: 'value' }));
    out.push({ parts, text: (from, to) => spell(codes.slice(from, to)) });
    if (codes.every((c) => c < 256)) {
      out.push({
        parts,
        text: (from, to) => Buffer.from(codes.slice(from, to)).toString('utf8'),
      });
    }
  }
  const columns = new Map<string, { parts: Part[]; texts: string[] }>();
  for (const item of items) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) continue;
    const record = item as Record<string, unknown>;
    for (const [key, v] of Object.entries(record)) {
      if (typeof v !== 'string' && typeof v !== 'number') continue;
      const column = columns.get(key) ?? { parts: [], texts: [] };
      columns.set(key, column);
      column.parts.push({ holder: record, slot: key, kind: 'value' });
      column.texts.push(typeof v === 'number' ? (numberTexts(v)[0] ?? '') : clip(v));
    }
  }
  for (const { parts, texts } of columns.values()) {
    if (parts.length >= 2) out.push(joined(parts, texts));
  }
}

/**
 * Every joined text of `value`, parts longer than `span` non-separator characters at either end
 * clipped: each array's joins, then the whole value's values in order, keys in order, keys and
 * values in order, and values in order with integers as characters.
 */
export function joinsOf(value: unknown, span: number): Join[] {
  const clip = (text: string): string => clipText(text, span);
  const out: Join[] = [];
  const all: { part: Part; text: string; char?: string }[] = [];
  const seen = { code: false };
  const walk = (v: unknown, holder: Record<string, unknown> | unknown[], slot: string | number) => {
    if (typeof v === 'string') {
      all.push({ part: { holder, slot, kind: 'value' }, text: clip(v) });
    } else if (typeof v === 'number') {
      const text = numberTexts(v)[0] ?? '';
      const char = isCode(v) ? String.fromCodePoint(v) : undefined;
      if (char !== undefined) seen.code = true;
      all.push({
        part: { holder, slot, kind: 'value' },
        text,
        ...(char !== undefined ? { char } : {}),
      });
    } else if (Array.isArray(v)) {
      arrayJoins(v, clip, out);
      v.forEach((item, i) => {
        walk(item, v, i);
      });
    } else if (typeof v === 'object' && v !== null) {
      const record = v as Record<string, unknown>;
      for (const [key, item] of Object.entries(record)) {
        all.push({ part: { holder: record, slot: key, kind: 'key' }, text: clip(key) });
        walk(item, record, key);
      }
    }
  };
  walk(value, [value], 0);
  const values = all.filter((e) => e.part.kind === 'value');
  const keys = all.filter((e) => e.part.kind === 'key');
  const push = (entries: typeof all, text: (e: (typeof all)[number]) => string): void => {
    out.push(
      joined(
        entries.map((e) => e.part),
        entries.map(text),
      ),
    );
  };
  if (values.length > 1) push(values, (e) => e.text);
  if (keys.length > 1) push(keys, (e) => e.text);
  if (keys.length > 0 && all.length > 1) push(all, (e) => e.text);
  if (seen.code && values.length > 1) push(values, (e) => e.char ?? e.text);
  return out;
}
