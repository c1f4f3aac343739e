/**
 * A tool's surface as an MCP server offers it (name, description, input schema, annotations, and
 * the whole definition as listed) and the digests `tool-mcp pin` records for it: one over the
 * known surface, one per part and one over every field as listed (`listed`), each `sha256:<hex>`
 * of canonical JSON, so a later probe can say exactly which field changed.
 */

import { canonicalJson, sha256Hex } from '../../config/snapshot/canonical-json.js';

/** One tool from `tools/list`, reduced to plain JSON data. */
export interface ToolSurface {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
  /**
   * The whole tool exactly as listed (plain JSON): every field, `title`, `outputSchema`, `_meta`
   * and annotation keys Codex does not know included. Absent: the known fields above.
   */
  readonly definition?: Readonly<Record<string, unknown>>;
}

/** Most `tools/list` pages followed before the server is considered broken. */
export const MAX_TOOL_PAGES = 1000;

const ANNOTATION_FIELDS: Readonly<Record<string, 'string' | 'boolean'>> = {
  title: 'string',
  readOnlyHint: 'boolean',
  destructiveHint: 'boolean',
  idempotentHint: 'boolean',
  openWorldHint: 'boolean',
};

/** The annotation fields Codex understands, with the right types; others are dropped. */
export function knownAnnotations(
  raw: Record<string, unknown> | null | undefined,
): Record<string, unknown> | undefined {
  if (raw === null || raw === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(ANNOTATION_FIELDS)) {
    const value = raw[key];
    if (typeof value === type) out[key] = value;
  }
  return out;
}

/** The parts of a surface that a pin covers, in the order reports list them. */
export const SURFACE_PARTS = ['description', 'inputSchema', 'annotations'] as const;
export type SurfacePart = (typeof SURFACE_PARTS)[number];

/** Digests of one tool's surface: the whole (what `ToolPin.digest` holds) and each part. */
export interface SurfaceDigests {
  readonly digest: string;
  readonly description?: string;
  readonly inputSchema: string;
  readonly annotations?: string;
  /** Of the whole tool as listed (`listedDefinition`). */
  readonly listed: string;
}

/** Drops `undefined` members and anything else JSON cannot carry, giving plain JSON data. */
export function plainJson(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(JSON.stringify(value)) as unknown;
}

export function sha256Digest(text: string): string {
  return `sha256:${sha256Hex(text)}`;
}

/** `sha256:` of the canonical JSON of plain JSON data. */
export function jsonDigest(value: unknown): string {
  return sha256Digest(canonicalJson(plainJson(value) ?? null));
}

/** Canonical JSON text of a surface part, as stored in the lock file for later comparison. */
export function canonicalPart(value: unknown): string {
  return canonicalJson(plainJson(value) ?? null);
}

/**
 * The digest of a tool's surface: sha256 of the canonical JSON of `{name, description,
 * inputSchema, annotations}`, leaving out a description or annotations the tool does not have.
 */
export function surfaceDigests(tool: ToolSurface): SurfaceDigests {
  const whole: Record<string, unknown> = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.description !== undefined) whole.description = tool.description;
  if (tool.annotations !== undefined) whole.annotations = tool.annotations;
  const out: {
    digest: string;
    description?: string;
    inputSchema: string;
    annotations?: string;
    listed: string;
  } = {
    digest: jsonDigest(whole),
    inputSchema: jsonDigest(tool.inputSchema),
    listed: jsonDigest(listedDefinition(tool)),
  };
  if (tool.description !== undefined) out.description = jsonDigest(tool.description);
  if (tool.annotations !== undefined) out.annotations = jsonDigest(tool.annotations);
  return out;
}

/** The whole tool as listed: its `definition`, else the known fields of the surface. */
export function listedDefinition(tool: ToolSurface): Readonly<Record<string, unknown>> {
  if (tool.definition !== undefined) return tool.definition;
  const out: Record<string, unknown> = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return out;
}

/** The `listed` digest of one raw `tools/list` entry: every field, as plain JSON. */
export function listedDigest(raw: Readonly<Record<string, unknown>>): string {
  return jsonDigest(raw);
}

/** Converts one raw `tools/list` entry (already schema-checked by the SDK) into a surface. */
export function toolSurfaceOf(raw: {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: unknown;
  annotations?: unknown;
  definition?: Readonly<Record<string, unknown>>;
}): ToolSurface {
  const inputSchema = plainJson(raw.inputSchema);
  const annotations = plainJson(raw.annotations);
  const out: {
    name: string;
    title?: string;
    description?: string;
    inputSchema: Record<string, unknown>;
    annotations?: Record<string, unknown>;
    definition?: Readonly<Record<string, unknown>>;
  } = {
    name: raw.name,
    inputSchema: isRecord(inputSchema) ? inputSchema : {},
  };
  if (raw.title !== undefined) out.title = raw.title;
  if (raw.description !== undefined) out.description = raw.description;
  if (isRecord(annotations)) out.annotations = annotations;
  if (raw.definition !== undefined) out.definition = raw.definition;
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
