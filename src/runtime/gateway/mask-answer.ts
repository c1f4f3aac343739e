/**
 * Masks credential values in everything a server sends to Codex (pure): results of every method
 * (tools, resources, prompts, completion), errors, notifications and the server's own requests.
 * Every string and key has each value's known forms replaced by `***`; a base64 text (a resource
 * blob) is masked inside its decoded bytes and encoded again; a string, key or number in which a
 * value is still found in any form the credential check recognises becomes `***` as a whole.
 */
import { MASK, maskSecrets } from '../../foundation/diagnostics/mask-secrets.js';
import {
  numberTexts,
  type CredentialMatcher,
} from '../../foundation/diagnostics/credential-scan.js';

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

/** `value` with every credential value masked (plain JSON data; a new value, the input unchanged). */
export function maskAnswer<T>(value: T, matcher: CredentialMatcher, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskString(v, matcher, secrets);
    if (typeof v === 'number') {
      return numberTexts(v).some((t) => matcher.find(t) !== undefined) ? MASK : v;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[maskString(k, matcher, secrets)] = walk(item);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
