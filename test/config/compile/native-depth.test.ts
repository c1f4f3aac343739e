/**
 * How deep a process's native roles nest: each role counted at the fewest `spawn_agent` steps
 * from the process root through `native_agents`, cycles and roles of other processes ignored.
 */
import { describe, expect, it } from 'vitest';

import { nativeDepth } from '../../../src/config/compile/native-depth.js';
import { resolvePlan } from '../../../src/config/profile/resolve-plan.js';
import type { ProfileData } from '../../../src/config/profile/types.js';
import { profile, role, servers, stdio } from '../../support/build.js';

const defs = servers(stdio('ida', ['list_functions']));

function depthOf(p: ProfileData, root: string): number {
  const { plan } = resolvePlan(p, defs);
  const process = plan!.processes.find((x) => x.root === root)!;
  return nativeDepth(p, process);
}

describe('nativeDepth', () => {
  it('is 0 without native roles and 1 for native roles of the root only', () => {
    expect(depthOf(profile('lead', [role('lead', {})]), 'lead')).toBe(0);
    const flat = profile('lead', [
      role('lead', { native_agents: ['a', 'b'] }),
      role('a', {}),
      role('b', {}),
    ]);
    expect(depthOf(flat, 'lead')).toBe(1);
  });

  it('counts nesting by the shortest path, through cycles', () => {
    const nested = profile('lead', [
      role('lead', { native_agents: ['a', 'c'] }),
      role('a', { native_agents: ['b'] }),
      role('b', { native_agents: ['a', 'c'] }),
      role('c', {}),
    ]);
    // c is reached from the root directly; b only through a
    expect(depthOf(nested, 'lead')).toBe(2);
  });

  it('stops at a participant role: its natives belong to its own process', () => {
    const split = profile('lead', [
      role('lead', { native_agents: ['a'], spawn: ['p'] }),
      role('a', {}),
      role('p', { native_agents: ['q'] }),
      role('q', { native_agents: ['r'] }),
      role('r', {}),
    ]);
    expect(depthOf(split, 'lead')).toBe(1);
    expect(depthOf(split, 'p')).toBe(2);
  });
});
