/**
 * The Streamable HTTP headers of MCP 2026-07-28 that mirror a request's body, as pure functions:
 * which `params` field `Mcp-Name` mirrors, how a header value is written and read (`=?base64?…?=`
 * for one that is not plain printable ASCII), and the `Mcp-Param-{Name}` headers a tool declares
 * with `x-mcp-header` on a property reached through `properties` alone (SEP-2243): which to send
 * for a call's arguments, and why a call's headers disagree with its arguments.
 */

/** Which field of `params` the `Mcp-Name` header mirrors, by method. */
export const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** One `x-mcp-header` declaration of a tool: the argument's path, its header name and type. */
export interface ParamHeader {
  readonly path: readonly string[];
  readonly header: string;
  readonly type?: string;
}

const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const PLAIN = /^[\t\x20-\x7e]*$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A header value as sent: as is when it is printable ASCII without edge spaces, else base64. */
export function encodeHeaderValue(text: string): string {
  const plain = text !== '' && text === text.trim() && !SENTINEL.test(text) && PLAIN.test(text);
  return plain ? text : `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/**
 * A header value as meant: the text of a `=?base64?…?=` value, any other as is (a value missing
 * either end of the sentinel is literal); undefined when the base64 is not canonical or not UTF-8.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith('=?base64?') && value.endsWith('?=') && value.length >= 11)) return value;
  const match = SENTINEL.exec(value);
  if (match?.[1] === undefined) return undefined;
  const bytes = Buffer.from(match[1], 'base64');
  if (bytes.toString('base64') !== match[1]) return undefined;
  const text = new TextDecoder('utf-8', { fatal: true });
  try {
    return text.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The `x-mcp-header` declarations of a tool's input schema, reached through `properties` only. */
export function paramHeaders(inputSchema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const walk = (schema: unknown, path: string[]): void => {
    if (!isObject(schema) || !isObject(schema.properties)) return;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      const header = property['x-mcp-header'];
      if (typeof header === 'string' && TOKEN.test(header)) {
        const type = typeof property.type === 'string' ? property.type : undefined;
        found.push({ path: [...path, key], header, ...(type !== undefined ? { type } : {}) });
      }
      walk(property, [...path, key]);
    }
  };
  walk(inputSchema, []);
  return found;
}

/** Each tool a `tools/list` result lists, with its `x-mcp-header` declarations. */
export function listedParamHeaders(result: unknown): [string, ParamHeader[]][] {
  const tools = isObject(result) && Array.isArray(result.tools) ? result.tools : [];
  return tools.flatMap((tool): [string, ParamHeader[]][] =>
    isObject(tool) && typeof tool.name === 'string'
      ? [[tool.name, paramHeaders(tool.inputSchema)]]
      : [],
  );
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return node;
}

function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The `Mcp-Param-*` headers (lower-cased names) of a call's arguments. */
export function paramHeaderValues(
  declared: readonly ParamHeader[],
  args: unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of declared) {
    const text = primitiveText(valueAt(args, d.path));
    if (text !== undefined) out[`mcp-param-${d.header.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return out;
}

/**
 * Why a call's `Mcp-Param-*` headers disagree with its arguments, or undefined: an argument with
 * a value and no header, a header that cannot be read, or one that reads as another value.
 */
export function paramHeaderMismatch(
  declared: readonly ParamHeader[],
  args: unknown,
  header: (name: string) => string | undefined,
): string | undefined {
  for (const d of declared) {
    const body = valueAt(args, d.path);
    const text = primitiveText(body);
    if (text === undefined) continue;
    const name = `Mcp-Param-${d.header}`;
    const sent = header(name.toLowerCase());
    if (sent === undefined) return `the ${name} header is missing`;
    const read = decodeHeaderValue(sent);
    if (read === undefined) return `the ${name} header holds characters a header may not carry`;
    const numeric = (d.type === 'integer' || d.type === 'number') && typeof body === 'number';
    if (numeric ? Number(read) !== body : read !== text) {
      return `the ${name} header does not match the argument it mirrors`;
    }
  }
  return undefined;
}
