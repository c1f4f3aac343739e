/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, UTF-8 when encoded.
 * Equal data always gives equal text, so its sha256 can serve as a content identity. Only plain
 * JSON data is accepted; anything else (undefined, functions, dates, non-finite numbers) throws.
 */
import { createHash } from 'node:crypto';

/** Hex sha256 of text (as UTF-8) or bytes: the digest behind snapshot ids and tool pins. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Serialises plain JSON data canonically. Throws TypeError for values JSON cannot represent. */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, '$');
  return parts.join('');
}

function write(value: unknown, out: string[], where: string): void {
  if (value === null) {
    out.push('null');
    return;
  }
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${where}: ${String(value)} is not JSON`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      break;
    default:
      throw new TypeError(`${where}: a ${typeof value} value is not JSON`);
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: unknown, index) => {
      if (index > 0) out.push(',');
      write(item, out, `${where}[${index}]`);
    });
    out.push(']');
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new TypeError(`${where}: only plain objects are JSON (got ${describe(value)})`);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort(compareCodeUnits);
  out.push('{');
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) throw new TypeError(`${where}.${key}: undefined is not JSON`);
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(key), ':');
    write(item, out, `${where}.${key}`);
  }
  out.push('}');
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function describe(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' ? name : 'an exotic object';
}
