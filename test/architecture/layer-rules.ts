/**
 * The layer rule of `src/`, as a check over an import graph (pure). Layers, lowest first:
 * foundation, config, runtime, features, cli; `src/index.ts` is the public API above the four
 * library layers. A file may import its own folder, a lower layer, or a sibling folder of its own
 * layer as long as the folders of that layer form no cycle. Nothing but the CLI imports the CLI,
 * and no library layer imports `src/index.ts`. The CLI counts as one folder. An area's `index.ts`
 * re-exports its own folder only; the CLI reaches the library only through `src/index.ts` and
 * area indexes, and library modules import each other directly, never through an index.
 */
import { folderOf, type ImportEdge } from './import-graph.js';

/** The layers of `src/`, lowest first. */
export const LAYERS = ['foundation', 'config', 'runtime', 'features', 'cli'] as const;

const API = 'src/index.ts';

/** The layer of a `src/` file: its first folder; `api` for `src/index.ts`; undefined elsewhere. */
export function layerOf(file: string): string | undefined {
  if (file === API) return 'api';
  const [top, layer, next] = file.split('/');
  if (top !== 'src' || next === undefined) return undefined;
  return (LAYERS as readonly string[]).includes(layer ?? '') ? layer : undefined;
}

function rank(layer: string): number {
  if (layer === 'api') return LAYERS.indexOf('features') + 0.5;
  return (LAYERS as readonly string[]).indexOf(layer);
}

/** The folder a file counts in for the cycle rule: its own, or `src/cli` for all of the CLI. */
function unitOf(file: string): string {
  return layerOf(file) === 'cli' ? 'src/cli' : folderOf(file);
}

/** An area's index module: an `index.ts` inside a layer's folder (not `src/index.ts`). */
function isAreaIndex(file: string): boolean {
  return file !== API && file.endsWith('/index.ts');
}

/** Why an import breaks the index rule (see the header), or undefined when it keeps it. */
function indexProblem(edge: ImportEdge, from: string, to: string): string | undefined {
  if (isAreaIndex(edge.from) && folderOf(edge.to) !== folderOf(edge.from)) {
    return 'an area index re-exports another folder';
  }
  if (from === 'cli' && to !== 'cli' && to !== 'api' && !isAreaIndex(edge.to)) {
    return "the CLI imports past an area's index";
  }
  if (from !== 'cli' && from !== 'api' && isAreaIndex(edge.to) && !isAreaIndex(edge.from)) {
    return 'a library module imports an index';
  }
  return undefined;
}

/** Why one import breaks the rule, or undefined when it keeps it. */
function edgeProblem(edge: ImportEdge): string | undefined {
  const from = layerOf(edge.from);
  const to = layerOf(edge.to);
  if (from === undefined) return 'the importing file is in no layer';
  if (to === undefined) return 'imports a file outside the layers of src/';
  if (to === 'cli' && from !== 'cli') return `${from} imports the CLI`;
  if (to === 'api' && from !== 'cli') return `${from} imports the public API (src/index.ts)`;
  if (rank(to) > rank(from)) return `upward: ${from} imports ${to}`;
  return indexProblem(edge, from, to);
}

/** The folder cycles among sibling folders of one layer: each as its folders, in cycle order. */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = unitOf(from);
    const b = unitOf(to);
    if (a === b || layerOf(from) !== layerOf(to) || layerOf(from) === undefined) continue;
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)?.add(b);
  }
  // Tarjan's strongly connected components; every component of two or more folders is a cycle
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, indexOf.get(w) ?? 0));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w !== undefined) {
          onStack.delete(w);
          component.push(w);
        }
      } while (w !== undefined && w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!indexOf.has(v)) visit(v);
  return cycles;
}

/** Every import that breaks the rule, as readable lines `file -> import (why)`, sorted. */
export function layerViolations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const edge of edges) {
    const problem = edgeProblem(edge);
    if (problem !== undefined) out.push(`${edge.from} -> ${edge.specifier} (${problem})`);
  }
  for (const cycle of folderCycles(edges)) {
    const members = new Set(cycle);
    const names = cycle.join(', ');
    for (const edge of edges) {
      const a = unitOf(edge.from);
      const b = unitOf(edge.to);
      if (a !== b && members.has(a) && members.has(b)) {
        out.push(`${edge.from} -> ${edge.specifier} (folder cycle: ${names})`);
      }
    }
  }
  return out.sort();
}
