/**
 * Finds where each key of a TOML document is written, so that semantic diagnostics (not only
 * syntax errors) can point at file:line:column. It scans text the TOML parser has already
 * accepted, so it only needs to follow structure: headers, dotted keys, strings, arrays and
 * inline tables. Paths are arrays of key segments and array indexes.
 */

export type KeyPath = readonly (string | number)[];

export interface Position {
  readonly line: number;
  readonly column: number;
}

export class KeyPositions {
  private readonly map = new Map<string, Position>();

  set(path: KeyPath, position: Position): void {
    const key = pathKey(path);
    if (!this.map.has(key)) this.map.set(key, position);
  }

  /** Exact position of a key, or of the nearest enclosing key that has one. */
  lookup(path: KeyPath): Position | undefined {
    for (let n = path.length; n > 0; n--) {
      const found = this.map.get(pathKey(path.slice(0, n)));
      if (found) return found;
    }
    return undefined;
  }

  has(path: KeyPath): boolean {
    return this.map.has(pathKey(path));
  }
}

function pathKey(path: KeyPath): string {
  return JSON.stringify(path);
}

const BARE_KEY = /^[A-Za-z0-9_-]+$/;

/** Human form of a key path: `tool_mcp_servers.firecrawl.enabled_tools[1]`, quoting odd keys. */
export function formatKeyPath(path: KeyPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') {
      out += `[${segment}]`;
    } else {
      const part = BARE_KEY.test(segment) ? segment : JSON.stringify(segment);
      out += out === '' ? part : `.${part}`;
    }
  }
  return out;
}

type Frame =
  | { kind: 'array'; path: (string | number)[]; index: number }
  | { kind: 'inline'; path: (string | number)[] };

/** Scans TOML source text and records the position of every key, header and array element. */
export function scanKeyPositions(text: string): KeyPositions {
  const positions = new KeyPositions();
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  const arrayTableCounts = new Map<string, number>();
  let currentTable: (string | number)[] = [];
  const stack: Frame[] = [];

  const pos = (at: number): Position => ({ line, column: at - lineStart + 1 });

  const newline = (at: number): void => {
    line++;
    lineStart = at + 1;
  };

  const skipSpaceAndComments = (allowNewlines: boolean): void => {
    while (i < n) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\r') i++;
      else if (c === '#') {
        while (i < n && text[i] !== '\n') i++;
      } else if (c === '\n' && allowNewlines) {
        newline(i);
        i++;
      } else break;
    }
  };

  /** Reads one key segment (bare or quoted). Returns its text and start offset. */
  const readKeySegment = (): { key: string; start: number } | undefined => {
    const start = i;
    const c = text[i];
    if (c === '"') {
      const value = readBasicString();
      return { key: value, start };
    }
    if (c === "'") {
      i++;
      const s = i;
      while (i < n && text[i] !== "'") i++;
      const value = text.slice(s, i);
      i++;
      return { key: value, start };
    }
    const s = i;
    while (i < n && /[A-Za-z0-9_-]/.test(text[i] ?? '')) i++;
    if (i === s) return undefined;
    return { key: text.slice(s, i), start };
  };

  const readBasicString = (): string => {
    // assumes text[i] === '"' and not a multiline opener
    i++;
    let out = '';
    while (i < n && text[i] !== '"') {
      if (text[i] === '\\') {
        const next = text[i + 1];
        if (next === 'u' || next === 'U') {
          const len = next === 'u' ? 4 : 8;
          const hex = text.slice(i + 2, i + 2 + len);
          const cp = Number.parseInt(hex, 16);
          out += Number.isNaN(cp) ? '' : String.fromCodePoint(cp);
          i += 2 + len;
          continue;
        }
        const map: Record<string, string> = {
          n: '\n',
          t: '\t',
          r: '\r',
          b: '\b',
          f: '\f',
          e: '\u001b',
          '"': '"',
          '\\': '\\',
        };
        out += map[next ?? ''] ?? next ?? '';
        i += 2;
        continue;
      }
      out += text[i] ?? '';
      i++;
    }
    i++;
    return out;
  };

  /** Reads a dotted key; returns segments with the position of the first one. */
  const readDottedKey = (): { segments: string[]; starts: number[] } | undefined => {
    const segments: string[] = [];
    const starts: number[] = [];
    for (;;) {
      skipSpaceAndComments(false);
      const seg = readKeySegment();
      if (!seg) return segments.length > 0 ? { segments, starts } : undefined;
      segments.push(seg.key);
      starts.push(seg.start);
      skipSpaceAndComments(false);
      if (text[i] === '.') {
        i++;
        continue;
      }
      return { segments, starts };
    }
  };

  const skipString = (): void => {
    const quote = text[i];
    const triple = text.startsWith(quote === '"' ? '"""' : "'''", i);
    if (triple) {
      i += 3;
      const close = quote === '"' ? '"""' : "'''";
      while (i < n) {
        if (quote === '"' && text[i] === '\\') {
          if (text[i + 1] === '\n') newline(i + 1);
          i += 2;
          continue;
        }
        if (text.startsWith(close, i)) {
          i += 3;
          // up to two extra quotes may belong to the content
          while (text[i] === quote) i++;
          return;
        }
        if (text[i] === '\n') newline(i);
        i++;
      }
      return;
    }
    if (quote === '"') {
      readBasicString();
      return;
    }
    i++;
    while (i < n && text[i] !== "'") i++;
    i++;
  };

  /** Parses a value starting at i; records positions of nested keys and array elements. */
  const readValue = (path: (string | number)[]): void => {
    const c = text[i];
    if (c === '"' || c === "'") {
      skipString();
      return;
    }
    if (c === '[') {
      i++;
      stack.push({ kind: 'array', path, index: 0 });
      readArrayBody();
      return;
    }
    if (c === '{') {
      i++;
      stack.push({ kind: 'inline', path });
      readInlineBody();
      return;
    }
    // scalar: number, bool, date-time
    while (i < n && !/[,\]}\n#]/.test(text[i] ?? '')) i++;
  };

  const readArrayBody = (): void => {
    const frame = stack[stack.length - 1];
    if (frame?.kind !== 'array') return;
    for (;;) {
      skipSpaceAndComments(true);
      if (i >= n) return;
      if (text[i] === ']') {
        i++;
        stack.pop();
        return;
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      const elementPath = [...frame.path, frame.index];
      positions.set(elementPath, pos(i));
      frame.index++;
      readValue(elementPath);
    }
  };

  const readInlineBody = (): void => {
    const frame = stack[stack.length - 1];
    if (frame?.kind !== 'inline') return;
    for (;;) {
      skipSpaceAndComments(true);
      if (i >= n) return;
      if (text[i] === '}') {
        i++;
        stack.pop();
        return;
      }
      if (text[i] === ',') {
        i++;
        continue;
      }
      const key = readDottedKey();
      if (!key) {
        i++;
        continue;
      }
      recordDotted(frame.path, key);
      skipSpaceAndComments(false);
      if (text[i] === '=') i++;
      skipSpaceAndComments(false);
      readValue([...frame.path, ...key.segments]);
    }
  };

  const recordDotted = (
    base: (string | number)[],
    key: { segments: string[]; starts: number[] },
  ): void => {
    for (let k = 0; k < key.segments.length; k++) {
      const start = key.starts[k] ?? i;
      positions.set([...base, ...key.segments.slice(0, k + 1)], pos(start));
    }
  };

  while (i < n) {
    skipSpaceAndComments(true);
    if (i >= n) break;
    const c = text[i];
    if (c === '[') {
      const isArrayTable = text[i + 1] === '[';
      const headerStart = i;
      i += isArrayTable ? 2 : 1;
      const key = readDottedKey();
      skipSpaceAndComments(false);
      i += isArrayTable ? 2 : 1;
      if (!key) continue;
      if (isArrayTable) {
        const name = JSON.stringify(key.segments);
        const index = arrayTableCounts.get(name) ?? 0;
        arrayTableCounts.set(name, index + 1);
        currentTable = [...key.segments, index];
        positions.set(key.segments, pos(headerStart));
        positions.set(currentTable, pos(headerStart));
      } else {
        currentTable = [...key.segments];
        for (let k = 0; k < key.segments.length; k++) {
          positions.set(key.segments.slice(0, k + 1), pos(key.starts[k] ?? headerStart));
        }
      }
      continue;
    }
    const key = readDottedKey();
    if (!key) {
      // not a key: skip the rest of this line defensively
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    recordDotted(currentTable, key);
    skipSpaceAndComments(false);
    if (text[i] === '=') i++;
    skipSpaceAndComments(false);
    readValue([...currentTable, ...key.segments]);
  }
  return positions;
}
