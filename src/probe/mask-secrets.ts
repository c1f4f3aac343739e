/**
 * Replaces every known credential value with `***` in text a server produced (stderr, error
 * messages, tool descriptions) before it is printed, stored or put in a diagnostic.
 */

export const MASK = '***';

/** Masks each secret (longest first, so a secret containing another is masked whole). */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const ordered = [...new Set(secrets)].filter((s) => s !== '').sort((a, b) => b.length - a.length);
  for (const secret of ordered) {
    if (out.includes(secret)) out = out.split(secret).join(MASK);
  }
  return out;
}

/** Masks every string (keys included) inside plain JSON data. */
export function maskDeep<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return maskSecrets(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) out[maskSecrets(k, secrets)] = walk(item);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
