/**
 * Masks credential values in everything a server sends to Codex (pure): results of every method
 * (tools, resources, prompts, completion), errors, notifications and the server's own requests.
 * First every string, key and number is masked where it stands (a base64 blob inside its bytes,
 * anything still holding a value in a recognised form whole); then every text the answer's values
 * make when joined, exactly as the credential check joins them, is scanned, and the parts that
 * spell a value (content items' texts, an array's items or character codes, a key and its value)
 * become `***`. An answer still holding a value after that is withheld whole.
 */
import { MASK, maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import type { CredentialMatcher } from '../../foundation/diagnostics/credential-scan.js';
import { joinsOf, type Join, type Part } from '../../foundation/diagnostics/credential-joins.js';
import { numberTexts } from '../../foundation/diagnostics/credential-text.js';
import type { AnswerMask } from './call-record.js';

/** How many values met only across joined parts are masked before an answer is withheld whole. */
export const MAX_JOINED_MASKS = 8;

export interface MaskedAnswer<T> {
  /** The answer masked; undefined when it is withheld whole. */
  readonly value: T | undefined;
  /** How it was masked; undefined when it held no credential value. */
  readonly mask?: AnswerMask;
}

const BASE64_TEXT = /^[A-Za-z0-9+/]+={0,2}$/;

/** `text` decoded as base64, masked byte for byte and encoded again; undefined if not base64. */
function maskBase64(text: string, secrets: readonly string[]): string | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length < 4 || compact.length % 4 !== 0 || !BASE64_TEXT.test(compact)) {
    return undefined;
  }
  const bytes = Buffer.from(compact, 'base64').toString('latin1');
  const forms = secrets.map((s) => Buffer.from(s, 'utf8').toString('latin1'));
  const masked = maskSecrets(bytes, forms);
  return masked === bytes ? undefined : Buffer.from(masked, 'latin1').toString('base64');
}

function maskString(text: string, matcher: CredentialMatcher, secrets: readonly string[]): string {
  if (matcher.find(text) === undefined) return maskSecrets(text, secrets);
  const blob = maskBase64(text, secrets);
  if (blob !== undefined && matcher.find(blob) === undefined) return blob;
  const out = maskSecrets(text, secrets);
  return matcher.find(out) === undefined ? out : MASK;
}

/** A copy of `value` with every string, key and number masked where it stands. */
function maskEach(
  value: unknown,
  matcher: CredentialMatcher,
  secrets: readonly string[],
): { value: unknown; changed: boolean } {
  let changed = false;
  const text = (t: string): string => {
    const out = maskString(t, matcher, secrets);
    if (out !== t) changed = true;
    return out;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return text(v);
    if (typeof v === 'number') {
      if (!numberTexts(v).some((t) => matcher.find(t) !== undefined)) return v;
      changed = true;
      return MASK;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[text(k)] = walk(item);
      return out;
    }
    return v;
  };
  return { value: walk(value), changed };
}

/**
 * The parts `from` … `to` of a join that spell a value: the last start from which the rest still
 * holds one, then the first end up to which it does (each found by halving).
 */
function spelling(join: Join, found: (text: string) => boolean): [number, number] {
  const n = join.parts.length;
  let from = 0;
  for (let hi = n; hi - from > 1;) {
    const mid = (from + hi) >> 1;
    if (found(join.text(mid, n))) from = mid;
    else hi = mid;
  }
  let to = n;
  for (let lo = from; to - lo > 1;) {
    const mid = (lo + to) >> 1;
    if (found(join.text(from, mid))) to = mid;
    else lo = mid;
  }
  return found(join.text(from, to)) ? [from, to] : [0, n];
}

/** Replaces each part with `***`: values first, then keys (renamed in place, order kept). */
function maskParts(parts: readonly Part[]): void {
  for (const part of parts) {
    if (part.kind === 'value') (part.holder as Record<string | number, unknown>)[part.slot] = MASK;
  }
  for (const part of parts) {
    if (part.kind !== 'key') continue;
    const record = part.holder as Record<string, unknown>;
    const entries = Object.entries(record);
    for (const key of Object.keys(record)) Reflect.deleteProperty(record, key);
    for (const [key, item] of entries) record[key === part.slot ? MASK : key] = item;
  }
}

/** `value` with every credential value masked (plain JSON data; the input unchanged). */
export function maskAnswer<T>(
  value: T,
  matcher: CredentialMatcher,
  secrets: readonly string[],
): MaskedAnswer<T> {
  if (secrets.length === 0) return { value };
  const each = maskEach(value, matcher, secrets);
  const found = (text: string): boolean => matcher.find(text) !== undefined;
  let joined = false;
  for (let round = 0; ; round++) {
    const join = joinsOf(each.value, matcher.span).find((j) => found(j.text(0, j.parts.length)));
    if (join === undefined) {
      const mask = joined
        ? 'credential-joined-in-answer'
        : each.changed
          ? 'credential-in-answer'
          : undefined;
      return { value: each.value as T, ...(mask !== undefined ? { mask } : {}) };
    }
    if (round >= MAX_JOINED_MASKS) return { value: undefined, mask: 'answer-withheld' };
    const [from, to] = spelling(join, found);
    maskParts(join.parts.slice(from, to));
    joined = true;
  }
}
