/**
 * Merges validated fragments into the operator registry (pure). A later definition of an ID
 * replaces the whole earlier one (no field survives, so a transport change keeps nothing);
 * provenance records the winning file and the files it replaced. It needs no TOML parser or
 * validator, so a registry whose fragment results are cached loads without them.
 *
 * Fail closed: when the winning definition of an ID is invalid, the ID is absent from `servers`
 * (an earlier valid definition does not come back) and its status is `ok: false`; so does an ID
 * that a fragment which does not parse appears to define. The diagnostics of replaced definitions
 * are still reported. Each replacement adds an informational `server-replaced` diagnostic.
 */
import { basename } from 'node:path';

import type { Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { formatKeyPath } from '../../foundation/toml/key-positions.js';
import { REGISTRY_CODES } from './diagnostic-codes.js';
import { safeKey } from './diagnostic-sink.js';
import type { Registry, RegistryEntry, ServerStatus } from './types.js';
import type { FragmentResult, FragmentServer } from './validate-fragment.js';

/** Byte-wise (UTF-8) order of file names, then of whole paths: `10-a.toml` before `9-b.toml`. */
export function compareFragmentFiles(a: string, b: string): number {
  return (
    Buffer.compare(Buffer.from(basename(a), 'utf8'), Buffer.from(basename(b), 'utf8')) ||
    Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
  );
}

interface Definition {
  readonly result: FragmentResult;
  readonly server: FragmentServer;
}

/**
 * Merges the validation results of fragments, given in load order (`compareFragmentFiles`), into
 * a registry. Never throws.
 */
export function mergeFragmentResults(results: readonly FragmentResult[]): Registry {
  const byId = new Map<string, Definition[]>();
  for (const result of results) {
    for (const server of result.servers) {
      const list = byId.get(server.id);
      if (list === undefined) byId.set(server.id, [{ result, server }]);
      else list.push({ result, server });
    }
  }

  const replacements = new Map<FragmentResult, Diagnostic[]>();
  const servers = new Map<string, RegistryEntry>();
  const statuses: ServerStatus[] = [];
  for (const id of [...byId.keys()].sort(compareIds)) {
    const definitions = byId.get(id) ?? [];
    const winner = definitions[definitions.length - 1];
    if (winner === undefined) continue;
    const replaces = definitions.slice(0, -1).map((d) => d.result.file);

    for (let k = 1; k < definitions.length; k++) {
      const later = definitions[k];
      const earlier = definitions[k - 1];
      if (later === undefined || earlier === undefined) continue;
      const list = replacements.get(later.result) ?? [];
      list.push(replacedNotice(id, later, earlier.result.file));
      replacements.set(later.result, list);
    }

    const { transport } = winner.server;
    const shownId = safeKey(id);
    statuses.push(
      transport === undefined
        ? { id: shownId, file: winner.result.file, ok: winner.server.ok }
        : { id: shownId, transport, file: winner.result.file, ok: winner.server.ok },
    );

    const definition = winner.server.definition;
    if (!winner.server.ok || definition === undefined) continue;
    const entry: RegistryEntry = {
      definition,
      file: winner.result.file,
      line: winner.server.line,
      column: winner.server.column,
      replaces,
    };
    const { positions } = winner.result;
    servers.set(id, positions === undefined ? entry : { ...entry, positions });
  }

  const diagnostics: Diagnostic[] = [];
  for (const result of results) {
    const notices = replacements.get(result);
    const own =
      notices === undefined ? result.diagnostics : mergeByPosition(result.diagnostics, notices);
    // a loop, not push(...own): a fragment may have more diagnostics than a call's argument limit
    for (const d of own) diagnostics.push(d);
  }

  return {
    servers,
    statuses,
    files: results.map((r) => r.file),
    diagnostics,
  };
}

function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function replacedNotice(rawId: string, later: Definition, earlierFile: string): Diagnostic {
  const id = safeKey(rawId);
  return {
    severity: REGISTRY_CODES['server-replaced'].severity,
    code: 'server-replaced',
    message: `this definition of ${id} replaces the whole definition in ${earlierFile} (no field of it is kept)`,
    file: later.result.file,
    line: later.server.line,
    column: later.server.column,
    path: formatKeyPath(['tool_mcp_servers', id]),
    server: id,
  };
}

/** Merges two position-ordered lists of one file's diagnostics, keeping `a` first on ties. */
function mergeByPosition(a: readonly Diagnostic[], b: readonly Diagnostic[]): Diagnostic[] {
  const sortedB = [...b].sort(
    (x, y) => (x.line ?? 0) - (y.line ?? 0) || (x.column ?? 0) - (y.column ?? 0),
  );
  const out: Diagnostic[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < sortedB.length) {
    const x = a[i];
    const y = sortedB[j];
    if (y === undefined || (x !== undefined && !after(x, y))) {
      if (x !== undefined) out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

function after(x: Diagnostic, y: Diagnostic): boolean {
  const lx = x.line ?? 0;
  const ly = y.line ?? 0;
  return lx > ly || (lx === ly && (x.column ?? 0) > (y.column ?? 0));
}
