/**
 * `server-name-collision` (pure): servers of one Codex process that a supported Codex version
 * offers to the model under one namespace (`a-b` and `a_b` are both `mcp__a_b`). Codex then
 * renames each to `mcp__<name>_<hash>`, and neither the model wire nor `profile smoke` could tell
 * them apart, so resolving a profile refuses it.
 */
import {
  CODEX_VERSIONS,
  offeredNameCollisions,
  offeredNamespace,
} from '../codex/codex-versions.js';
import type { CodexVersionFacts } from '../codex/codex-versions.js';
import { diagnostic, type Diagnostic } from '../../foundation/diagnostics/diagnostic.js';
import { keyLocation, type KeyPositions } from '../../foundation/toml/key-positions.js';
import { RESERVED_SERVER_ID } from '../registry/types.js';
import type { ProfileData, ResolvedProcess } from './types.js';

/** A group of colliding IDs, the namespace they share and the versions on which they do. */
interface Collision {
  readonly ids: readonly string[];
  readonly namespace: string;
  readonly series: string[];
}

/**
 * One error per group of servers of one process (the runtime's `mmo_mesh` included when the
 * process runs it) that some row of `table` offers under one namespace, at the grant of the
 * first role of the process that grants one of them.
 */
export function serverNameCollisions(
  profile: ProfileData,
  processes: readonly ResolvedProcess[],
  source?: { readonly file: string; readonly positions?: KeyPositions },
  table: readonly CodexVersionFacts[] = CODEX_VERSIONS,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const process of processes) {
    const ids = process.mesh ? [...process.servers, RESERVED_SERVER_ID] : [...process.servers];
    const found = new Map<string, Collision>();
    for (const facts of [...table].reverse()) {
      for (const group of offeredNameCollisions(facts, ids)) {
        const key = group.join('\n');
        const seen = found.get(key);
        if (seen !== undefined) seen.series.push(facts.series);
        else {
          const namespace = offeredNamespace(facts, group[0] ?? '') ?? '';
          found.set(key, { ids: group, namespace, series: [facts.series] });
        }
      }
    }
    for (const { ids: group, namespace, series } of found.values()) {
      const granted = group.filter((id) => id !== RESERVED_SERVER_ID);
      const first = granted[0] ?? '';
      const holder =
        process.roles.find((role) => profile.agents[role]?.grants[first] !== undefined) ??
        process.root;
      const mesh = group.includes(RESERVED_SERVER_ID);
      const rename = mesh
        ? `rename \`${first}\` in the registry (\`tool-mcp remove ${first}\`, then \`tool-mcp add\` under an ID that is not \`${RESERVED_SERVER_ID}\` with \`-\` for \`_\`)`
        : `rename one of them in the registry (\`tool-mcp remove ID\`, then \`tool-mcp add\` under an ID that differs in more than \`-\` versus \`_\`), or grant them to roles of different processes`;
      out.push(
        diagnostic({
          code: 'server-name-collision',
          message: `servers ${group.map((id) => `\`${id}\``).join(' and ')} of \`${process.root}\`'s Codex process would both be offered to the model as \`${namespace}\` (Codex ${series.join(' and ')} turns every character outside [A-Za-z0-9_] into \`_\`)${mesh ? `, the runtime's own \`${RESERVED_SERVER_ID}\` included` : ''}: Codex would rename each to \`${namespace}_<hash>\`, and the model wire could not tell them apart. To fix: ${rename}`,
          server: first,
          ...keyLocation(source?.file, source?.positions, [
            'agents',
            holder,
            'tool_mcp_servers',
            first,
          ]),
        }),
      );
    }
  }
  return out;
}
