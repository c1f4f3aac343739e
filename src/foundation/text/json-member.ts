/**
 * Sets one member of a JSON object's text without re-serialising the rest (pure): every other
 * member keeps its exact text (a number beyond double precision stays as written). Every
 * top-level member named `key` gets `value`; with none, `key` is added first. The text must be a
 * JSON object (`JSON.parse` accepted it); anything else gives `undefined`.
 */

const WHITESPACE = /\s/;

/** The index just past the JSON string starting at `at` (a `"`). */
function endOfString(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/** The index just past the JSON value starting at `at`. */
function endOfValue(text: string, at: number): number {
  if (text[at] === '"') return endOfString(text, at);
  let depth = 0;
  let i = at;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = endOfString(text, i);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === ',' && depth === 0) return i;
    i++;
  }
  return i;
}

function skipBlanks(text: string, at: number): number {
  let i = at;
  while (i < text.length && WHITESPACE.test(text[i] ?? '')) i++;
  return i;
}

export function setJsonMember(text: string, key: string, value: unknown): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const replacement = JSON.stringify(value);
  const open = skipBlanks(text, 0);
  let i = skipBlanks(text, open + 1);
  const spans: [number, number][] = [];
  while (text[i] === '"') {
    const keyEnd = endOfString(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skipBlanks(text, skipBlanks(text, keyEnd) + 1);
    let end = endOfValue(text, start);
    // a literal or number ends at the `,` or `}` after it: trailing blanks are not the value's
    while (end > start && WHITESPACE.test(text[end - 1] ?? '')) end--;
    if (name === key) spans.push([start, end]);
    i = skipBlanks(text, end);
    if (text[i] === ',') i = skipBlanks(text, i + 1);
  }
  if (spans.length === 0) {
    const rest = text.slice(open + 1);
    const empty = rest.trim() === '}';
    return `${text.slice(0, open + 1)}${JSON.stringify(key)}:${replacement}${empty ? '' : ','}${rest}`;
  }
  let out = text;
  for (const [start, end] of spans.reverse()) {
    out = `${out.slice(0, start)}${replacement}${out.slice(end)}`;
  }
  return out;
}
