/**
 * The participants of a resumed session's predecessor: shown only in the roles the caller may
 * see, with whom each is continued by; continued once, in its own role, and only when it exists.
 */
import { describe, expect, it } from 'vitest';

import {
  previousFor,
  resumeTarget,
  type PreviousSession,
} from '../../../src/runtime/mesh/previous-participants.js';
import { MeshError } from '../../../src/runtime/protocol/mesh-protocol.js';

const previous: PreviousSession = {
  session: 'S1',
  participants: [
    {
      participant: 'worker-1',
      role: 'worker',
      owner: 'root',
      status: 'ended',
      home: '/h/w1',
      thread: 't1',
    },
    {
      participant: 'critic-1',
      role: 'critic',
      owner: 'worker-1',
      status: 'stopped',
      home: '/h/c1',
      thread: 't2',
    },
  ],
};

const ALL: ReadonlySet<string> = new Set(['worker', 'critic']);

const refusal = (run: () => unknown): MeshError => {
  try {
    run();
  } catch (error) {
    if (error instanceof MeshError) return error;
    throw error;
  }
  throw new Error('no refusal');
};

describe('previous participants', () => {
  it('shows the roles a caller may see, and who continues each', () => {
    expect(previousFor(undefined, new Set(['worker']), new Map())).toBeUndefined();
    expect(previousFor(previous, new Set(['nobody']), new Map())).toBeUndefined();
    const shown = previousFor(previous, new Set(['worker']), new Map([['worker-1', 'worker-3']]));
    expect(shown).toEqual([
      {
        participant: 'worker-1',
        role: 'worker',
        owner: 'root',
        status: 'ended',
        session: 'S1',
        resumed_as: 'worker-3',
      },
    ]);
    // one being started is not yet anyone's
    expect(
      previousFor(previous, new Set(['worker']), new Map([['worker-1', '']]))?.[0],
    ).not.toHaveProperty('resumed_as');
  });

  it('continues only one the caller may see (control), once, in its own role', () => {
    // a caller that may spawn workers but not control them cannot take over an earlier one
    expect(
      refusal(() => resumeTarget(previous, 'worker-1', 'worker', new Map(), new Set(['critic'])))
        .code,
    ).toBe('not-found');
    expect(resumeTarget(previous, 'worker-1', 'worker', new Map(), ALL).thread).toBe('t1');
    expect(refusal(() => resumeTarget(undefined, 'worker-1', 'worker', new Map(), ALL)).code).toBe(
      'not-found',
    );
    expect(refusal(() => resumeTarget(previous, 'worker-9', 'worker', new Map(), ALL)).code).toBe(
      'not-found',
    );
    const wrongRole = refusal(() => resumeTarget(previous, 'critic-1', 'worker', new Map(), ALL));
    expect(wrongRole.code).toBe('invalid');
    expect(wrongRole.message).toContain("resume it with role 'critic'");
    const twice = refusal(() =>
      resumeTarget(previous, 'worker-1', 'worker', new Map([['worker-1', 'worker-2']]), ALL),
    );
    expect(twice.code).toBe('refused');
    expect(twice.message).toContain('by worker-2');
    expect(
      refusal(() => resumeTarget(previous, 'worker-1', 'worker', new Map([['worker-1', '']]), ALL))
        .message,
    ).toContain('being resumed');
  });
});
