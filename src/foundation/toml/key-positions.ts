/**
 * Finds where each key of a TOML document is written, so that semantic diagnostics (not only
 * syntax errors) can point at file:line:column. It scans text the TOML parser has already
 * accepted, so it only needs to follow structure: headers, dotted keys, strings, arrays and
 * inline tables. Paths are arrays of key segments and array indexes.
 */
import { decodeBasicString } from './basic-string.js';

export type KeyPath = readonly (string | number)[];

export interface Position {
  readonly line: number;
  readonly column: number;
}

/** A node of the position trie: the position of the key at this path, and its children. */
export interface PositionNode {
  position?: Position;
  /** Children by key (a prototype-less dictionary). */
  keys?: Record<string, PositionNode>;
  /** Children by array index. */
  items?: PositionNode[];
}

function child(node: PositionNode, segment: string | number): PositionNode | undefined {
  return typeof segment === 'number' ? node.items?.[segment] : node.keys?.[segment];
}

/** The child of `node` for `segment`, created when absent. */
function descend(node: PositionNode, segment: string | number): PositionNode {
  let next = child(node, segment);
  if (next === undefined) {
    next = {};
    if (typeof segment === 'number') (node.items ??= [])[segment] = next;
    else (node.keys ??= Object.create(null) as Record<string, PositionNode>)[segment] = next;
  }
  return next;
}

export class KeyPositions {
  /**
   * A trie over path segments: no string is built per key, and lookups walk the path once.
   * `scanKeyPositions` fills the trie directly, without building a path array per key.
   */
  #root: PositionNode | undefined;
  /** Builds the trie on first use, for positions that may never be asked for (see `deferred`). */
  #build: (() => PositionNode) | undefined;

  constructor(root: PositionNode = {}) {
    this.#root = root;
  }

  /** Positions built by `build` when first needed (a cached fragment rescans its text then). */
  static deferred(build: () => PositionNode): KeyPositions {
    const positions = new KeyPositions();
    positions.#root = undefined;
    positions.#build = build;
    return positions;
  }

  private get root(): PositionNode {
    if (this.#root === undefined) {
      this.#root = this.#build?.() ?? {};
      this.#build = undefined;
    }
    return this.#root;
  }

  /** The trie itself (`new KeyPositions(trie)` gives the same positions). */
  trie(): PositionNode {
    return this.root;
  }

  set(path: KeyPath, position: Position): void {
    let node = this.root;
    for (const segment of path) node = descend(node, segment);
    if (node !== this.root && node.position === undefined) node.position = position;
  }

  /** Exact position of a key, or of the nearest enclosing key that has one. */
  lookup(path: KeyPath): Position | undefined {
    let node = this.root;
    let found: Position | undefined;
    for (const segment of path) {
      const next = child(node, segment);
      if (next === undefined) break;
      node = next;
      if (node.position !== undefined) found = node.position;
    }
    return found;
  }

  has(path: KeyPath): boolean {
    let node: PositionNode | undefined = this.root;
    for (const segment of path) {
      node = child(node, segment);
      if (node === undefined) return false;
    }
    return node !== this.root && node.position !== undefined;
  }
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

/** Where a key is written: ready to spread into `diagnostic({...})`. */
export interface KeyLocation {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  readonly path: string;
}

/**
 * The file, line and column of the key at `path` (or of its nearest enclosing key; none when the
 * document has no position for it) and the path in human form.
 */
export function keyLocation(
  file: string | undefined,
  positions: KeyPositions | undefined,
  path: KeyPath,
): KeyLocation {
  const at = positions?.lookup(path);
  return {
    ...(file !== undefined ? { file } : {}),
    ...(at !== undefined ? { line: at.line, column: at.column } : {}),
    path: formatKeyPath(path),
  };
}

/*
 * Sticky patterns for the runs the scanner skips. The regular-expression engine runs them as
 * native code, which keeps a cold, once-per-command scan fast.
 */
/** Blanks and comments on the current line (the newline itself is not consumed). */
const BLANKS = /(?:[ \t\r]+|#[^\n]*)*/y;
/** Blanks, comments and newlines. */
const BLANKS_AND_NEWLINES = /(?:[ \t\r\n]+|#[^\n]*)*/y;
/** A bare key: `A-Z a-z 0-9 _ -`. */
const BARE_KEY_RUN = /[A-Za-z0-9_-]*/y;
/** The body of a basic string, up to (not including) its closing quote. */
const BASIC_STRING_BODY = /(?:[^"\\]|\\[^])*/y;
/** A bare scalar (number, boolean, date-time), up to `, ] } \n #`. */
const SCALAR_RUN = /[^,\]}\n#]*/y;

/** End offset of the sticky `pattern`'s (possibly empty) match at `at`. */
function runEnd(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : at;
}

type Frame =
  { kind: 'array'; node: PositionNode; index: number } | { kind: 'inline'; node: PositionNode };

const lenientDecoder = new TextDecoder('utf-8', { ignoreBOM: false });

/**
 * The positions of a document `parseTomlBytes` accepted, from its bytes, decoded as it decodes
 * them (a leading byte-order mark is not part of the text).
 */
export function scanKeyPositionsOfBytes(bytes: Uint8Array): KeyPositions {
  const text = lenientDecoder.decode(bytes);
  return scanKeyPositions(text.startsWith('\uFEFF') ? text.slice(1) : text);
}

/** Scans TOML source text and records the position of every key, header and array element. */
// eslint-disable-next-line max-lines-per-function -- one-pass scanner: every step shares the cursor, line count and table state of its closures; splitting it would thread that state through each call on the hot path of every config read
export function scanKeyPositions(text: string): KeyPositions {
  const root: PositionNode = {};
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = text.length;
  const arrayTableCounts = new Map<string, number>();
  let currentTable = root;
  const stack: Frame[] = [];

  /** Records offset `at` (on the current line) as the position of `node`'s key, unless it has one. */
  const mark = (node: PositionNode, at: number): void => {
    if (node !== root && node.position === undefined) {
      node.position = { line, column: at - lineStart + 1 };
    }
  };

  const newline = (at: number): void => {
    line++;
    lineStart = at + 1;
  };

  /** Moves to offset `to`, counting the newlines passed. */
  // Offset of the next newline at or after `i` (-1: none left); recomputed only once passed, so
  // skipping along one very long line stays linear.
  let nextNewline = -2;
  const advanceTo = (to: number): void => {
    if (nextNewline !== -1 && nextNewline < i) nextNewline = text.indexOf('\n', i);
    while (nextNewline !== -1 && nextNewline < to) {
      newline(nextNewline);
      nextNewline = text.indexOf('\n', nextNewline + 1);
    }
    i = to;
  };

  const skipSpaceAndComments = (allowNewlines: boolean): void => {
    if (i >= n) return;
    if (allowNewlines) advanceTo(runEnd(BLANKS_AND_NEWLINES, text, i));
    else i = runEnd(BLANKS, text, i);
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
      const close = text.indexOf("'", i + 1);
      const end = close === -1 ? n : close;
      const value = text.slice(i + 1, end);
      i = end + 1;
      return { key: value, start };
    }
    i = runEnd(BARE_KEY_RUN, text, i);
    if (i === start) return undefined;
    return { key: text.slice(start, i), start };
  };

  const readBasicString = (): string => {
    // assumes text[i] === '"' and not a multiline opener
    const { value, end } = decodeBasicString(text, i);
    i = end;
    return value;
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
      // skip a basic string without decoding it: only escapes matter, for the closing quote
      i = runEnd(BASIC_STRING_BODY, text, i + 1) + 1;
      return;
    }
    const close = text.indexOf("'", i + 1);
    i = (close === -1 ? n : close) + 1;
  };

  /** Parses a value starting at i; records positions of nested keys and array elements. */
  const readValue = (node: PositionNode): void => {
    const c = text[i];
    if (c === '"' || c === "'") {
      skipString();
      return;
    }
    if (c === '[') {
      i++;
      stack.push({ kind: 'array', node, index: 0 });
      readArrayBody();
      return;
    }
    if (c === '{') {
      i++;
      stack.push({ kind: 'inline', node });
      readInlineBody();
      return;
    }
    // scalar: number, bool, date-time
    i = runEnd(SCALAR_RUN, text, i);
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
      const element = descend(frame.node, frame.index);
      mark(element, i);
      frame.index++;
      readValue(element);
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
      const node = recordDotted(frame.node, key);
      skipSpaceAndComments(false);
      if (text[i] === '=') i++;
      skipSpaceAndComments(false);
      readValue(node);
    }
  };

  /** Records each segment of a dotted key below `base`; returns the node of the whole key. */
  const recordDotted = (
    base: PositionNode,
    key: { segments: string[]; starts: number[] },
  ): PositionNode => {
    let node = base;
    for (let k = 0; k < key.segments.length; k++) {
      node = descend(node, key.segments[k] ?? '');
      mark(node, key.starts[k] ?? i);
    }
    return node;
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
        let node = root;
        for (const segment of key.segments) node = descend(node, segment);
        mark(node, headerStart);
        currentTable = descend(node, index);
        mark(currentTable, headerStart);
      } else {
        currentTable = recordDotted(root, key);
      }
      continue;
    }
    const key = readDottedKey();
    if (!key) {
      // not a key: skip the rest of this line defensively
      const eol = text.indexOf('\n', i);
      i = eol === -1 ? n : eol;
      continue;
    }
    const node = recordDotted(currentTable, key);
    skipSpaceAndComments(false);
    if (text[i] === '=') i++;
    skipSpaceAndComments(false);
    readValue(node);
  }
  return new KeyPositions(root);
}
