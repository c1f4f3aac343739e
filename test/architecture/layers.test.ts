/**
 * The source tree keeps its layer rule: every import in src/ goes to its own folder, a lower
 * layer, or a sibling folder of its layer with no folder cycle; only the CLI imports the CLI.
 * The check itself is tested on made-up graphs, so a broken rule cannot pass unseen.
 */
import { resolve } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  importGraph,
  importSpecifiers,
  resolveSpecifier,
  type ImportEdge,
} from './import-graph.js';
import { folderCycles, layerOf, layerViolations } from './layer-rules.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Edges from `from -> to` pairs of `src/` paths (the specifier is the target path). */
function graph(...pairs: [string, string][]): ImportEdge[] {
  return pairs.map(([from, to]) => ({ from: `src/${from}`, to: `src/${to}`, specifier: to }));
}

describe('the layers of src/', () => {
  it('has no upward import, no import of the CLI or the API from below, no folder cycle, and indexes kept', () => {
    const edges = importGraph(ROOT, 'src');
    expect(edges.length).toBeGreaterThan(500);
    expect(layerViolations(edges)).toEqual([]);
  });

  it('puts every source file in a layer', () => {
    const files = new Set(importGraph(ROOT, 'src').flatMap((e) => [e.from, e.to]));
    expect([...files].filter((f) => layerOf(f) === undefined)).toEqual([]);
  });
});

describe('the layer check', () => {
  it('accepts imports of the own folder, lower layers and acyclic sibling folders', () => {
    const edges = graph(
      ['config/profile/a.ts', 'config/profile/b.ts'],
      ['config/profile/a.ts', 'config/registry/types.ts'],
      ['config/registry/types.ts', 'foundation/errors.ts'],
      ['features/smoke/smoke.ts', 'runtime/mesh/broker.ts'],
      ['cli/commands/run.ts', 'index.ts'],
      ['cli/router.ts', 'cli/commands/run.ts'],
      ['cli/commands/run.ts', 'cli/common.ts'],
      ['index.ts', 'features/session/start.ts'],
    );
    expect(layerViolations(edges)).toEqual([]);
  });

  it('names an upward import with its file and specifier', () => {
    const edges = graph(['runtime/probe/report.ts', 'features/profile/doctor.ts']);
    expect(layerViolations(edges)).toEqual([
      'src/runtime/probe/report.ts -> features/profile/doctor.ts (upward: runtime imports features)',
    ]);
  });

  it('refuses the CLI and the public API to every library layer', () => {
    const edges = graph(
      ['runtime/probe/report.ts', 'cli/common.ts'],
      ['features/session/launch.ts', 'index.ts'],
    );
    expect(layerViolations(edges)).toEqual([
      'src/features/session/launch.ts -> index.ts (features imports the public API (src/index.ts))',
      'src/runtime/probe/report.ts -> cli/common.ts (runtime imports the CLI)',
    ]);
  });

  it('lets the CLI and the API reach the library through area indexes', () => {
    const edges = graph(
      ['cli/commands/run.ts', 'features/session/index.ts'],
      ['cli/main.ts', 'runtime/gateway/index.ts'],
      ['index.ts', 'config/registry/index.ts'],
      ['config/registry/index.ts', 'config/registry/types.ts'],
    );
    expect(layerViolations(edges)).toEqual([]);
  });

  it('refuses the CLI past an index, an index of another folder, and a library import of one', () => {
    const edges = graph(
      ['cli/commands/run.ts', 'features/session/launch.ts'],
      ['config/registry/index.ts', 'config/profile/types.ts'],
      ['runtime/mesh/broker.ts', 'runtime/session/index.ts'],
    );
    expect(layerViolations(edges)).toEqual([
      "src/cli/commands/run.ts -> features/session/launch.ts (the CLI imports past an area's index)",
      'src/config/registry/index.ts -> config/profile/types.ts (an area index re-exports another folder)',
      'src/runtime/mesh/broker.ts -> runtime/session/index.ts (a library module imports an index)',
    ]);
  });

  it('lists every import of a folder cycle inside one layer', () => {
    const edges = graph(
      ['runtime/session/launch.ts', 'runtime/mesh/broker.ts'],
      ['runtime/mesh/broker.ts', 'runtime/gateway/hub.ts'],
      ['runtime/gateway/hub.ts', 'runtime/session/env.ts'],
      ['runtime/gateway/hub.ts', 'runtime/codex/client.ts'],
    );
    expect(folderCycles(edges)).toEqual([
      ['src/runtime/gateway', 'src/runtime/mesh', 'src/runtime/session'],
    ]);
    const cycle = 'folder cycle: src/runtime/gateway, src/runtime/mesh, src/runtime/session';
    expect(layerViolations(edges)).toEqual([
      `src/runtime/gateway/hub.ts -> runtime/session/env.ts (${cycle})`,
      `src/runtime/mesh/broker.ts -> runtime/gateway/hub.ts (${cycle})`,
      `src/runtime/session/launch.ts -> runtime/mesh/broker.ts (${cycle})`,
    ]);
  });

  it('counts the root files of a layer as a folder of their own', () => {
    const edges = graph(
      ['foundation/errors.ts', 'foundation/paths/directories.ts'],
      ['foundation/paths/atomic-write.ts', 'foundation/errors.ts'],
    );
    expect(folderCycles(edges)).toEqual([['src/foundation', 'src/foundation/paths']]);
  });

  it('refuses files outside the layers', () => {
    const edges = graph(['session/launch.ts', 'foundation/errors.ts'], ['config/a.ts', 'util.ts']);
    expect(layerViolations(edges)).toEqual([
      'src/config/a.ts -> util.ts (imports a file outside the layers of src/)',
      'src/session/launch.ts -> foundation/errors.ts (the importing file is in no layer)',
    ]);
  });
});

describe('the import reader', () => {
  it('sees static, type-only, re-exported, side-effect and dynamic imports, not packages', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      "export { c } from './c.js';",
      "export * from '../../d.js';",
      "import './e.js';",
      "const f = await import('./f.js');",
      "import { readFile } from 'node:fs/promises';",
      "import ts from 'typescript';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual([
      './a.js',
      '../b/b.js',
      './c.js',
      '../../d.js',
      './e.js',
      './f.js',
    ]);
  });

  it('resolves a .js specifier to the .ts source beside the importer', () => {
    expect(resolveSpecifier('src/runtime/mesh/a.ts', '../../config/x/y.js')).toBe(
      'src/config/x/y.ts',
    );
  });
});
