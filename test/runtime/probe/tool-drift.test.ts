/**
 * A tool's pin covers every field as listed: title, output schema, `_meta`, annotation keys
 * Codex does not know and any other field are compared and named; a pin made before
 * (without `listedDigest`) is compared on the known surface only.
 */
import { describe, expect, it } from 'vitest';

import type { PinnedTool } from '../../../src/config/lock/lock-format.js';
import { compareWithPin } from '../../../src/runtime/probe/tool-drift.js';
import {
  canonicalPart,
  listedDefinition,
  surfaceDigests,
  toolSurfaceOf,
  type ToolSurface,
} from '../../../src/runtime/probe/tool-surface.js';

function surface(definition: Record<string, unknown>): ToolSurface {
  return toolSurfaceOf({
    name: String(definition.name),
    title: definition.title as string | undefined,
    description: definition.description as string | undefined,
    inputSchema: definition.inputSchema,
    definition,
  });
}

function pinOf(tool: ToolSurface): PinnedTool {
  const digests = surfaceDigests(tool);
  return {
    name: tool.name,
    digest: digests.digest,
    inputSchemaDigest: digests.inputSchema,
    listedDigest: digests.listed,
    listed: canonicalPart(listedDefinition(tool)),
  };
}

const echo = {
  name: 'echo',
  title: 'Echo',
  description: 'Echoes.',
  inputSchema: { type: 'object' },
  outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  annotations: { readOnlyHint: true, vendorHint: 'calm' },
  _meta: { ui: 'plain' },
};

function changes(after: Record<string, unknown>): [string, string][] | undefined {
  const now = surface(after);
  return compareWithPin(now, surfaceDigests(now), pinOf(surface(echo)))?.changes.map((c) => [
    c.part,
    c.summary,
  ]);
}

describe('tool drift over every field', () => {
  it('matches an unchanged tool', () => {
    expect(changes(echo)).toBeUndefined();
  });

  it('names a changed title', () => {
    expect(changes({ ...echo, title: 'Echo (use first)' })).toEqual([
      ['title', 'title changed: Echo{+ (use first)+}'],
    ]);
  });

  it('names a changed output schema', () => {
    expect(changes({ ...echo, outputSchema: { type: 'object' } })).toEqual([
      ['outputSchema', 'outputSchema changed at /properties removed'],
    ]);
  });

  it('names a changed _meta', () => {
    expect(changes({ ...echo, _meta: { ui: 'loud' } })).toEqual([
      ['_meta', '_meta changed at /ui changed ("plain" → "loud")'],
    ]);
  });

  it('names an annotation key Codex does not know', () => {
    expect(changes({ ...echo, annotations: { readOnlyHint: true, vendorHint: 'x' } })).toEqual([
      ['annotations', 'annotations changed at /vendorHint changed ("calm" → "x")'],
    ]);
  });

  it('names an unknown field added and a field removed', () => {
    const untitled: Record<string, unknown> = { ...echo };
    delete untitled.title;
    expect(changes({ ...untitled, icons: [{ src: 'x' }] })).toEqual([
      ['icons', 'icons added'],
      ['title', 'title removed'],
    ]);
  });

  it('compares a pin made before lock_version 3 on the known surface only', () => {
    const before = surface(echo);
    const old: PinnedTool = { name: 'echo', digest: surfaceDigests(before).digest };
    const retitled = surface({ ...echo, title: 'Other', _meta: { ui: 'loud' } });
    expect(compareWithPin(retitled, surfaceDigests(retitled), old)).toBeUndefined();
  });
});
