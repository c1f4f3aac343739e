/**
 * What a native role's smoke measurement means: with the model wire enforcing, a native role is
 * held to its grant exactly like a root or participant (a missing or an extra tool is an error);
 * where the wire cannot enforce, a difference is the `native-role-not-isolated` warning.
 */
import { describe, expect, it } from 'vitest';

import {
  roleDiagnostics,
  type SmokeMeasurement,
} from '../../../src/features/smoke/smoke-report.js';

const helper = (received: Record<string, string[]>): SmokeMeasurement => {
  const granted = { notes: ['echo'] };
  const diff = (a: Record<string, string[]>, b: Record<string, string[]>) =>
    Object.fromEntries(
      Object.entries(a)
        .map(([s, ts]) => [s, ts.filter((t) => !(b[s] ?? []).includes(t))] as const)
        .filter(([, ts]) => ts.length > 0),
    );
  return {
    process: 'lead',
    kind: 'native',
    shared_process: true,
    via: 'spawn_agent',
    spawned_by: 'lead',
    measured: true,
    granted,
    received,
    extra: diff(received, granted),
    missing: diff(granted, received),
    mesh: { expected: false, measured: true, received: [] },
  };
};

const codes = (m: SmokeMeasurement, enforcing: boolean): string[] =>
  roleDiagnostics('helper', m, enforcing).map((d) => `${d.severity}:${d.code}`);

describe('roleDiagnostics for a native role', () => {
  it('fails a native role that misses a granted tool where the wire enforces', () => {
    expect(codes(helper({}), true)).toEqual(['error:smoke-tool-missing']);
  });

  it('fails a native role that receives an ungranted tool where the wire enforces', () => {
    expect(codes(helper({ notes: ['echo', 'write'] }), true)).toEqual(['error:smoke-tool-extra']);
  });

  it('passes a native role offered exactly its grant', () => {
    expect(codes(helper({ notes: ['echo'] }), true)).toEqual([]);
  });

  it('warns, and does not fail, where the wire cannot enforce', () => {
    expect(codes(helper({}), false)).toEqual(['warning:native-role-not-isolated']);
  });
});
