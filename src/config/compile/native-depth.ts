/**
 * How deep a process's native roles nest (pure): the most `spawn_agent` steps from the process
 * root needed to reach any of its native roles, each role started only by a role that lists it
 * in `native_agents`. Codex lets only threads above `[agents] max_depth` (default 1) spawn, so a
 * process whose native roles nest deeper is rendered with that depth unless the operator set one.
 */
import type { ProfileData, ResolvedProcess } from '../profile/types.js';

export function nativeDepth(profile: ProfileData, process: ResolvedProcess): number {
  const inProcess = new Set(process.roles);
  const depth = new Map<string, number>([[process.root, 0]]);
  const queue = [process.root];
  for (let i = 0; i < queue.length; i++) {
    const role = queue[i] ?? '';
    const next = (depth.get(role) ?? 0) + 1;
    for (const child of profile.agents[role]?.native_agents ?? []) {
      if (!inProcess.has(child) || depth.has(child)) continue;
      depth.set(child, next);
      queue.push(child);
    }
  }
  return Math.max(0, ...depth.values());
}
